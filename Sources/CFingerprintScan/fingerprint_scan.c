#include "fingerprint_scan.h"

// The kernel, written once and compiled twice: for the baseline CPU (a portable bit count)
// and, on x86-64, for CPUs with POPCNT, picked at run time.
#define SCAN_BODY(COUNT_BITS)                                                                        \
    size_t found = 0;                                                                                \
    for (size_t i = 0; i < count; i++) {                                                             \
        if ((unsigned int)COUNT_BITS(fingerprints[i] ^ query) <= threshold) {                        \
            if (found < capacity) matches[found] = i;                                                \
            found++;                                                                                 \
        }                                                                                            \
    }                                                                                                \
    return found;

/// The population count in a few shifts and one multiply (no table, no branch).
static inline int portable_count(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

size_t fingerprint_scan_portable(const uint64_t *fingerprints, size_t count, uint64_t query, unsigned int threshold,
                                 size_t *matches, size_t capacity) {
    SCAN_BODY(portable_count)
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define HAVE_POPCNT_PATH 1

__attribute__((target("popcnt"))) static size_t scan_popcnt(const uint64_t *fingerprints, size_t count, uint64_t query,
                                                             unsigned int threshold, size_t *matches, size_t capacity) {
    SCAN_BODY(__builtin_popcountll)
}

static int cpu_has_popcnt(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt") ? 1 : 0;
}
#endif

int fingerprint_scan_uses_popcnt(void) {
#ifdef HAVE_POPCNT_PATH
    // Racing first calls compute the same answer: no lock needed.
    static int known = -1;
    int value = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (value < 0) {
        value = cpu_has_popcnt();
        __atomic_store_n(&known, value, __ATOMIC_RELAXED);
    }
    return value;
#else
    return 0;
#endif
}

size_t fingerprint_scan(const uint64_t *fingerprints, size_t count, uint64_t query, unsigned int threshold,
                        size_t *matches, size_t capacity) {
#ifdef HAVE_POPCNT_PATH
    if (fingerprint_scan_uses_popcnt()) return scan_popcnt(fingerprints, count, query, threshold, matches, capacity);
#endif
    return fingerprint_scan_portable(fingerprints, count, query, threshold, matches, capacity);
}
