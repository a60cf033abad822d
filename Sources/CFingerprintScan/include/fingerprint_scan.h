#ifndef FINGERPRINT_SCAN_H
#define FINGERPRINT_SCAN_H

#include <stddef.h>
#include <stdint.h>

/// Writes to `matches` the indexes `i` of `fingerprints[0..<count]` whose Hamming distance
/// to `query` is at most `threshold`, in increasing order, at most `capacity` of them, and
/// returns how many there are in all (more than `capacity` when some did not fit). Uses the
/// CPU's `POPCNT` when it has one (checked once, at run time), a portable bit count otherwise.
size_t fingerprint_scan(const uint64_t *fingerprints, size_t count, uint64_t query, unsigned int threshold,
                        size_t *matches, size_t capacity);

/// `fingerprint_scan` with the portable bit count always (what a CPU without `POPCNT` runs).
size_t fingerprint_scan_portable(const uint64_t *fingerprints, size_t count, uint64_t query, unsigned int threshold,
                                 size_t *matches, size_t capacity);

/// 1 when `fingerprint_scan` uses the CPU's `POPCNT`, 0 when it counts bits in software.
int fingerprint_scan_uses_popcnt(void);

#endif
