#include "heif_guard.h"

#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Bit reading (with HEVC's emulation-prevention bytes removed beforehand) ---- */

struct bits {
    const uint8_t *data;
    size_t size;     /* bytes */
    size_t position; /* bits */
    int overrun;
};

static uint32_t read_bits(struct bits *b, int count) {
    uint32_t value = 0;
    for (int i = 0; i < count; i++) {
        if (b->position >= b->size * 8) {
            b->overrun = 1;
            return 0;
        }
        value = (value << 1) | ((b->data[b->position >> 3] >> (7 - (b->position & 7))) & 1);
        b->position++;
    }
    return value;
}

static void skip_bits(struct bits *b, size_t count) {
    b->position += count;
    if (b->position > b->size * 8) b->overrun = 1;
}

/* Exp-Golomb ue(v); values past 32 bits mark the stream malformed. */
static uint32_t read_ue(struct bits *b) {
    int zeros = 0;
    while (read_bits(b, 1) == 0) {
        if (b->overrun || ++zeros > 31) {
            b->overrun = 1;
            return 0;
        }
    }
    return (uint32_t)((1ull << zeros) - 1 + read_bits(b, zeros));
}

/* ---- HEVC ---- */

/* pic_width/height_in_luma_samples of one SPS NAL unit (with its two-byte header). */
static int hevc_sps_size(const uint8_t *nal, size_t size, uint32_t *width, uint32_t *height) {
    /* The first 40 payload bytes or so hold the size; unescape at most 256. */
    uint8_t rbsp[256];
    size_t length = 0, zeros = 0;
    for (size_t i = 2; i < size && length < sizeof rbsp; i++) {
        if (zeros >= 2 && nal[i] == 3) {
            zeros = 0;
            continue;
        }
        zeros = nal[i] == 0 ? zeros + 1 : 0;
        rbsp[length++] = nal[i];
    }
    struct bits b = {rbsp, length, 0, 0};
    skip_bits(&b, 4); /* sps_video_parameter_set_id */
    uint32_t sub_layers = read_bits(&b, 3);
    skip_bits(&b, 1);  /* sps_temporal_id_nesting_flag */
    skip_bits(&b, 96); /* general profile, tier, flags and level */
    int profile_present[8] = {0}, level_present[8] = {0};
    for (uint32_t i = 0; i < sub_layers; i++) {
        profile_present[i] = (int)read_bits(&b, 1);
        level_present[i] = (int)read_bits(&b, 1);
    }
    if (sub_layers > 0) skip_bits(&b, 2 * (8 - sub_layers));
    for (uint32_t i = 0; i < sub_layers; i++) {
        if (profile_present[i]) skip_bits(&b, 88);
        if (level_present[i]) skip_bits(&b, 8);
    }
    read_ue(&b); /* sps_seq_parameter_set_id */
    if (read_ue(&b) == 3) skip_bits(&b, 1); /* chroma_format_idc 4:4:4: separate_colour_plane_flag */
    *width = read_ue(&b);
    *height = read_ue(&b);
    return b.overrun ? -1 : 0;
}

int utensil_hevc_max_picture(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    *width = 0;
    *height = 0;
    int found = 0;
    size_t position = 0;
    while (position < size) {
        if (size - position < 4) return -1;
        size_t length = ((size_t)data[position] << 24) | ((size_t)data[position + 1] << 16) |
                        ((size_t)data[position + 2] << 8) | data[position + 3];
        position += 4;
        if (length > size - position) return -1;
        const uint8_t *nal = data + position;
        if (length >= 2 && ((nal[0] >> 1) & 0x3F) == 33) {
            uint32_t w, h;
            if (hevc_sps_size(nal, length, &w, &h) != 0) return -1;
            if (w > *width) *width = w;
            if (h > *height) *height = h;
            found = 1;
        }
        position += length;
    }
    return found;
}

/* ---- AV1 ---- */

static uint32_t read_uvlc(struct bits *b) {
    int zeros = 0;
    while (read_bits(b, 1) == 0) {
        if (b->overrun) return 0;
        if (++zeros >= 32) return UINT32_MAX;
    }
    return (uint32_t)((1ull << zeros) - 1 + read_bits(b, zeros));
}

/* max_frame_width/height of one sequence header OBU's payload (AV1 spec 5.5). */
static int av1_sequence_size(const uint8_t *payload, size_t size, uint32_t *width, uint32_t *height) {
    struct bits b = {payload, size, 0, 0};
    skip_bits(&b, 4); /* seq_profile, still_picture */
    if (read_bits(&b, 1)) {
        skip_bits(&b, 5); /* reduced_still_picture_header: seq_level_idx[0] */
    } else {
        int decoder_model_info = 0;
        uint32_t buffer_delay_length = 0;
        if (read_bits(&b, 1)) { /* timing_info_present_flag */
            skip_bits(&b, 64);
            if (read_bits(&b, 1)) read_uvlc(&b); /* equal_picture_interval */
            decoder_model_info = (int)read_bits(&b, 1);
            if (decoder_model_info) {
                buffer_delay_length = read_bits(&b, 5) + 1;
                skip_bits(&b, 32 + 5 + 5);
            }
        }
        int initial_display_delay = (int)read_bits(&b, 1);
        uint32_t operating_points = read_bits(&b, 5) + 1;
        for (uint32_t i = 0; i < operating_points && !b.overrun; i++) {
            skip_bits(&b, 12); /* operating_point_idc */
            if (read_bits(&b, 5) > 7) skip_bits(&b, 1); /* seq_level_idx > 7: seq_tier */
            if (decoder_model_info && read_bits(&b, 1)) skip_bits(&b, 2 * buffer_delay_length + 1);
            if (initial_display_delay && read_bits(&b, 1)) skip_bits(&b, 4);
        }
    }
    int width_bits = (int)read_bits(&b, 4) + 1;
    int height_bits = (int)read_bits(&b, 4) + 1;
    *width = read_bits(&b, width_bits) + 1;
    *height = read_bits(&b, height_bits) + 1;
    return b.overrun ? -1 : 0;
}

static int read_leb128(const uint8_t *data, size_t size, size_t *position, uint64_t *value) {
    *value = 0;
    for (int i = 0; i < 8; i++) {
        if (*position >= size) return -1;
        uint8_t byte = data[(*position)++];
        *value |= (uint64_t)(byte & 0x7F) << (7 * i);
        if (!(byte & 0x80)) return 0;
    }
    return -1;
}

int utensil_av1_max_picture(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height) {
    *width = 0;
    *height = 0;
    int found = 0;
    size_t position = 0;
    while (position < size) {
        uint8_t header = data[position++];
        if (header & 0x80) return -1; /* obu_forbidden_bit */
        int type = (header >> 3) & 0x0F;
        if (header & 0x04) position++; /* obu_extension_flag */
        uint64_t length = size - (position < size ? position : size);
        if (header & 0x02 && read_leb128(data, size, &position, &length) != 0) return -1;
        if (position > size || length > size - position) return -1;
        if (type == 1) { /* OBU_SEQUENCE_HEADER */
            uint32_t w, h;
            if (av1_sequence_size(data + position, (size_t)length, &w, &h) != 0) return -1;
            if (w > *width) *width = w;
            if (h > *height) *height = h;
            found = 1;
        }
        position += (size_t)length;
    }
    return found;
}

/* ---- The guarding plugins ---- */

static _Thread_local uint32_t limit_width, limit_height;
static _Thread_local char refusal[200];

void utensil_heif_guard_set_limit(uint32_t declared_width, uint32_t declared_height) {
    limit_width = declared_width;
    limit_height = declared_height;
}

struct guarded_decoder {
    const struct heif_decoder_plugin *inner;
    void *decoder;
};

static const struct heif_decoder_plugin *inner_hevc, *inner_av1;

static struct heif_error ok(void) { return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "Success"}; }

static struct heif_error new_decoder(const struct heif_decoder_plugin *inner, void **decoder) {
    struct guarded_decoder *guarded = calloc(1, sizeof *guarded);
    if (!guarded) return (struct heif_error){heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
    guarded->inner = inner;
    struct heif_error error = inner->new_decoder(&guarded->decoder);
    if (error.code != heif_error_Ok) {
        free(guarded);
        return error;
    }
    *decoder = guarded;
    return ok();
}

static struct heif_error new_hevc_decoder(void **decoder) { return new_decoder(inner_hevc, decoder); }
static struct heif_error new_av1_decoder(void **decoder) { return new_decoder(inner_av1, decoder); }

static void free_decoder(void *decoder) {
    struct guarded_decoder *guarded = decoder;
    guarded->inner->free_decoder(guarded->decoder);
    free(guarded);
}

static struct heif_error push_checked(void *decoder, const void *data, size_t size, int is_av1) {
    struct guarded_decoder *guarded = decoder;
    if (limit_width || limit_height) {
        uint32_t width, height;
        int found = is_av1 ? utensil_av1_max_picture(data, size, &width, &height)
                           : utensil_hevc_max_picture(data, size, &width, &height);
        if (found < 0) {
            snprintf(refusal, sizeof refusal, "the %s stream's headers are cut off or malformed", is_av1 ? "AV1" : "HEVC");
            return (struct heif_error){heif_error_Decoder_plugin_error, heif_suberror_Invalid_image_size, refusal};
        }
        /* An HEVC picture is coded in whole blocks (up to 64 pixels), then cropped to its size. */
        const uint32_t slack = 64;
        if (found && (width > limit_width + slack || height > limit_height + slack)) {
            snprintf(refusal, sizeof refusal, "the coded picture is %u×%u pixels, larger than the %u×%u the file declares",
                     width, height, limit_width, limit_height);
            return (struct heif_error){heif_error_Decoder_plugin_error, heif_suberror_Invalid_image_size, refusal};
        }
    }
    return guarded->inner->push_data(guarded->decoder, data, size);
}

static struct heif_error push_hevc(void *decoder, const void *data, size_t size) { return push_checked(decoder, data, size, 0); }
static struct heif_error push_av1(void *decoder, const void *data, size_t size) { return push_checked(decoder, data, size, 1); }

static struct heif_error decode_image(void *decoder, struct heif_image **image) {
    struct guarded_decoder *guarded = decoder;
    return guarded->inner->decode_image(guarded->decoder, image);
}

static void set_strict_decoding(void *decoder, int flag) {
    struct guarded_decoder *guarded = decoder;
    if (guarded->inner->plugin_api_version >= 2 && guarded->inner->set_strict_decoding)
        guarded->inner->set_strict_decoding(guarded->decoder, flag);
}

static const char *hevc_name(void) { return "utensild size guard (HEVC)"; }
static const char *av1_name(void) { return "utensild size guard (AV1)"; }
static int supports_hevc(enum heif_compression_format format) { return format == heif_compression_HEVC ? 10000 : 0; }
static int supports_av1(enum heif_compression_format format) { return format == heif_compression_AV1 ? 10000 : 0; }

static struct heif_decoder_plugin hevc_guard = {
    .plugin_api_version = 3, .get_plugin_name = hevc_name, .does_support_format = supports_hevc,
    .new_decoder = new_hevc_decoder, .free_decoder = free_decoder, .push_data = push_hevc,
    .decode_image = decode_image, .set_strict_decoding = set_strict_decoding, .id_name = "utensild-guard-hevc"};
static struct heif_decoder_plugin av1_guard = {
    .plugin_api_version = 3, .get_plugin_name = av1_name, .does_support_format = supports_av1,
    .new_decoder = new_av1_decoder, .free_decoder = free_decoder, .push_data = push_av1,
    .decode_image = decode_image, .set_strict_decoding = set_strict_decoding, .id_name = "utensild-guard-av1"};

/* libheif's best plugin for `format` (its descriptors are its plugins: libheif 1.15 hands out
 * the plugin pointer as the descriptor). */
static const struct heif_decoder_plugin *best_plugin(enum heif_compression_format format) {
    const struct heif_decoder_descriptor *descriptors[1];
    if (heif_get_decoder_descriptors(format, descriptors, 1) < 1) return NULL;
    const struct heif_decoder_plugin *plugin = (const struct heif_decoder_plugin *)descriptors[0];
    if (plugin->plugin_api_version < 1 || plugin->get_plugin_name() != heif_decoder_descriptor_get_name(descriptors[0]))
        return NULL;
    return plugin;
}

int utensil_heif_guard_install(void) {
    int guarded = 0;
    if ((inner_hevc = best_plugin(heif_compression_HEVC)) && heif_register_decoder_plugin(&hevc_guard).code == heif_error_Ok)
        guarded++;
    if ((inner_av1 = best_plugin(heif_compression_AV1)) && heif_register_decoder_plugin(&av1_guard).code == heif_error_Ok)
        guarded++;
    return guarded;
}
