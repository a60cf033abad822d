#ifndef UTENSIL_HEIF_GUARD_H
#define UTENSIL_HEIF_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* Holds libheif's decoders to the size a HEIF file declares.
 *
 * A HEIF container states each image's size in its `ispe` box, and memory is budgeted from
 * it; but the HEVC or AV1 stream inside carries its own picture size, which libheif 1.15 does
 * not compare with the box before the decoder allocates it (a 4 KB file can declare 300×300
 * and decode 16384×16384). The guard registers, in front of libheif's own HEVC and AV1
 * plugins, a plugin that reads the picture size from every sequence parameter set (HEVC) or
 * sequence header (AV1) pushed to the decoder and refuses the image, before the real decoder
 * sees a byte, when it is larger than the size the calling thread declared. */

/* Registers the guard in front of the best HEVC and AV1 plugins libheif has (once per process,
 * after heif_init). Returns the number of formats guarded. */
int utensil_heif_guard_install(void);

/* The size the image to be decoded declares (its `ispe`), in pixels (0, 0: no limit): the
 * calling thread's next decodes refuse a coded picture larger than it by more than one coding
 * block. */
void utensil_heif_guard_set_limit(uint32_t declared_width, uint32_t declared_height);

/* The largest picture size in a stream of length-prefixed HEVC NAL units (4-byte big-endian
 * lengths, as libheif pushes them): 0 when it has no SPS, -1 when a unit or an SPS is cut off
 * or malformed. */
int utensil_hevc_max_picture(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height);

/* The same for a stream of AV1 OBUs (low-overhead format): the largest `max_frame_width/height`
 * of its sequence headers. */
int utensil_av1_max_picture(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height);

#endif
