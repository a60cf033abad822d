import CHeif
import CHeifGuard

/// Decodes a HEIF photo (HEIC, or AVIF) with libheif: its primary image, as displayed.
///
/// libheif applies the image's rotation, mirroring and crop (`irot`, `imir`, `clap`), grids
/// included; an EXIF orientation tag in a HEIF describes that same rotation (the HEIF rules
/// say so), so it is not applied a second time. The size from the header is checked against
/// `maxPixels` before anything is decoded. HEVC and AV1 have no reduced-size decoding: the
/// whole image is decoded, unless the file carries a thumbnail item that already covers the
/// thumbnail (its shorter side at least `size`, and the photo's shape), which is decoded instead.
/// Ten- and twelve-bit images come out of libheif as 8-bit RGB; an alpha plane is composited on white.
/// `heif_context_read_from_memory_without_copy` keeps the caller's pointer: all decoding
/// happens inside this call.
struct HEIFDecoder {
    let size: Int
    let maxPixels: Int
    /// HEIC or AVIF, for the words of errors.
    let format: SniffedFormat
    /// The preview's long side; 0 for none.
    var previewSide = 0
    /// Whether an 8-bit 4:2:0 image large enough is made from its planes at half resolution
    /// (``planarRenditions(of:preview:options:)``); false only to compare with the RGB path.
    var readsPlanes = true

    /// `heif_init` once per process (reference counted by libheif, never undone), and the size
    /// guard in front of libheif's HEVC and AV1 decoders (both must be there: without the guard
    /// a stream could decode far larger than the size the memory budget was given).
    private static let initialized: Bool = heif_init(nil).code == heif_error_Ok && utensil_heif_guard_install() == 2

    func decodeCost(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> Int {
        try withSource(bytes) { source, width, height in
            // Per pixel of what is decoded: libde265's or dav1d's picture and libheif's copy of
            // it (4:2:0, 1.5 samples a pixel each), an alpha plane likewise, a 16-bit image's
            // 8-bit conversion, and the interleaved RGB(A) result (measured: about 5 bytes a
            // pixel for an 8-bit 12 MP HEIC, peak).
            let pixels = Int(heif_image_handle_get_ispe_width(source)) * Int(heif_image_handle_get_ispe_height(source))
            let sampleBytes = heif_image_handle_get_luma_bits_per_pixel(source) > 8 ? 2 : 1
            let hasAlpha = heif_image_handle_has_alpha_channel(source) != 0
            let perPixel = 3 * sampleBytes + (hasAlpha ? 3 * sampleBytes + 4 : 3) + (sampleBytes > 1 ? 3 : 0)
            let preview = PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide)
            return pixels * perPixel + (preview?.cost ?? 0)
        }
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> DecodedSquare {
        try withSource(bytes) { source, width, height throws(ImageCodecError) in
            let preview = PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide)
            let made = try renditions(of: source, preview: preview)
            return DecodedSquare(
                pixels: made.square, storedWidth: width, storedHeight: height, orientation: .up, preview: made.preview)
        }
    }

    /// Reads the file, checks the primary image's size, and calls `body` with the image to
    /// decode (the primary, or a thumbnail item that covers the thumbnail) and the primary's
    /// displayed width and height.
    private func withSource<T>(
        _ bytes: UnsafeRawBufferPointer, _ body: (OpaquePointer, Int, Int) throws(ImageCodecError) -> T
    ) throws(ImageCodecError) -> T {
        guard Self.initialized, let base = bytes.baseAddress, let context = heif_context_alloc() else {
            throw .corrupt(detail: "libheif could not start a decoder")
        }
        defer { heif_context_free(context) }
        // Tiles on the calling thread, so that the decoder crash guard sees a crash in them.
        heif_context_set_max_decoding_threads(context, 0)
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: max(maxPixels, 1)))
        try check(heif_context_read_from_memory_without_copy(context, base, bytes.count, nil))

        var primary: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &primary))
        guard let primary else { throw .corrupt(detail: "the HEIF file has no primary image") }
        defer { heif_image_handle_release(primary) }
        let width = Int(heif_image_handle_get_width(primary)), height = Int(heif_image_handle_get_height(primary))
        guard width > 0, height > 0 else { throw .corrupt(detail: "the HEIF header gives no image size") }
        // The coded size (before a crop) is what the decoder allocates.
        let codedPixels = Int(heif_image_handle_get_ispe_width(primary)) * Int(heif_image_handle_get_ispe_height(primary))
        guard width * height <= maxPixels, codedPixels <= maxPixels else {
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }
        let thumbnail = coveringThumbnail(of: primary, width: width, height: height)
        defer { if let thumbnail { heif_image_handle_release(thumbnail) } }
        return try body(thumbnail ?? primary, width, height)
    }

    /// Decodes `source` to 8-bit RGB(A) and scales its centre square (and the whole, for a preview).
    ///
    /// The memory budget was computed from the coded size the container declares (`ispe`), so
    /// the decoders are held to it: a stream whose own headers give a larger picture is refused
    /// as corrupt before the decoder allocates anything.
    private func renditions(
        of source: OpaquePointer, preview: PreviewPlan?
    ) throws(ImageCodecError) -> (square: [UInt8], preview: DecodedPreview?) {
        utensil_heif_guard_set_limit(
            UInt32(clamping: heif_image_handle_get_ispe_width(source)),
            UInt32(clamping: heif_image_handle_get_ispe_height(source)))
        defer { utensil_heif_guard_set_limit(0, 0) }
        let hasAlpha = heif_image_handle_has_alpha_channel(source) != 0
        guard let options = heif_decoding_options_alloc() else { throw .corrupt(detail: "libheif could not start a decoder") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        options.pointee.strict_decoding = 1
        if readsPlanes, !hasAlpha, let made = try planarRenditions(of: source, preview: preview, options: options) {
            return made
        }
        var image: OpaquePointer?
        try check(heif_decode_image(
            source, &image, heif_colorspace_RGB, hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
            options))
        guard let image else { throw .corrupt(detail: "libheif returned no image") }
        defer { heif_image_release(image) }

        var stride: Int32 = 0
        let channel = heif_channel_interleaved
        guard let plane = heif_image_get_plane_readonly(image, channel, &stride),
            heif_image_get_bits_per_pixel_range(image, channel) == 8
        else { throw .corrupt(detail: "libheif returned no 8-bit RGB image") }
        let bitmap = InterleavedBitmap(
            base: plane, width: Int(heif_image_get_width(image, channel)), height: Int(heif_image_get_height(image, channel)),
            stride: Int(stride), hasAlpha: hasAlpha,
            premultipliedAlpha: heif_image_handle_is_premultiplied_alpha(source) != 0)
        guard bitmap.width > 0, bitmap.height > 0, bitmap.stride >= bitmap.width * (hasAlpha ? 4 : 3) else {
            throw .corrupt(detail: "libheif returned an empty image")
        }
        return bitmap.renditions(
            square: CenterSquare(width: bitmap.width, height: bitmap.height), size: size, preview: preview)
    }

    /// The renditions of an 8-bit 4:2:0 image without alpha (which the caller checks), coded as
    /// JFIF codes a JPEG (BT.601, full range: what libheif assumes without a colour profile),
    /// made from its planes at half resolution, as a 4:2:0 JPEG's are (``YUV420PlaneView``): libheif hands out the
    /// decoder's planes as they are, and neither converts the whole image to RGB nor
    /// upsamples its chroma; the resamplers read a quarter of the pixels. Nil (nothing decoded)
    /// when the image is not such an image, or its half resolution does not cover the
    /// preview and twice the thumbnail (a phone's 12 MP photo does; a photo under 3,200 pixels
    /// wide does not): the RGB path makes those.
    private func planarRenditions(
        of source: OpaquePointer, preview: PreviewPlan?, options: UnsafeMutablePointer<heif_decoding_options>
    ) throws(ImageCodecError) -> (square: [UInt8], preview: DecodedPreview?)? {
        let width = Int(heif_image_handle_get_width(source)), height = Int(heif_image_handle_get_height(source))
        let halfWidth = width / 2, halfHeight = height / 2
        guard heif_image_handle_get_luma_bits_per_pixel(source) == 8,
            heif_image_handle_get_chroma_bits_per_pixel(source) == 8,
            min(halfWidth, halfHeight) >= 2 * size,
            preview.map({ halfWidth >= $0.width && halfHeight >= $0.height }) ?? true,
            Self.isCodedAsJFIF(source)
        else { return nil }
        var decoded: OpaquePointer?
        let error = heif_decode_image(source, &decoded, heif_colorspace_YCbCr, heif_chroma_420, options)
        if error.code == heif_error_Unsupported_feature, error.subcode == heif_suberror_Unsupported_color_conversion {
            return nil  // Not coded as planes libheif can hand out (a monochrome image): the RGB path.
        }
        try check(error)
        guard let image = decoded else { throw .corrupt(detail: "libheif returned no image") }
        defer { heif_image_release(image) }
        guard heif_image_get_colorspace(image) == heif_colorspace_YCbCr, heif_image_get_chroma_format(image) == heif_chroma_420
        else { throw .corrupt(detail: "libheif returned no 4:2:0 image") }

        func plane(_ channel: heif_channel, width: Int, height: Int) -> (UnsafeRawBufferPointer, Int)? {
            var stride: Int32 = 0
            let rows = Int(heif_image_get_height(image, channel))
            guard heif_image_get_bits_per_pixel_range(image, channel) == 8,
                Int(heif_image_get_width(image, channel)) >= width, rows >= height,
                let base = heif_image_get_plane_readonly(image, channel, &stride), stride > 0
            else { return nil }
            return (UnsafeRawBufferPointer(start: base, count: Int(stride) * rows), Int(stride))
        }
        guard let luma = plane(heif_channel_Y, width: 2 * halfWidth, height: 2 * halfHeight),
            let blue = plane(heif_channel_Cb, width: halfWidth, height: halfHeight),
            let red = plane(heif_channel_Cr, width: halfWidth, height: halfHeight),
            let view = YUV420PlaneView(
                luma: luma.0, lumaStride: luma.1, blue: blue.0, blueStride: blue.1, red: red.0, redStride: red.1,
                halfWidth: halfWidth, halfHeight: halfHeight)
        else { throw .corrupt(detail: "libheif returned planes smaller than the image") }

        var resampler = RenditionResamplers(
            sourceWidth: halfWidth, sourceHeight: halfHeight,
            square: CenterSquare(width: width, height: height).scaled(by: 0.5), size: size, preview: preview,
            whole: SourceRect(x: 0, y: 0, width: Double(width) / 2, height: Double(height) / 2))
        let columns = resampler.sourceColumns
        var row = [UInt8](repeating: 0, count: columns.count * 3)
        row.withUnsafeMutableBufferPointer { row in
            for y in 0..<halfHeight where resampler.needs(row: y) {
                view.halfResolutionRow(y, columns: columns, into: row)
                resampler.add(row: UnsafeBufferPointer(row), y: y)
            }
        }
        return resampler.finish()
    }

    /// Whether the image's samples are YCbCr as JFIF codes them, the conversion
    /// ``YUV420PlaneView`` makes: BT.601 (or unspecified, which libheif takes as BT.601) at full
    /// range, or no colour profile (libheif's default, the same). BT.709, a limited range or
    /// RGB in the planes are left to libheif's own conversion.
    private static func isCodedAsJFIF(_ source: OpaquePointer) -> Bool {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_handle_get_nclx_color_profile(source, &profile).code == heif_error_Ok, let profile else {
            return true
        }
        defer { heif_nclx_color_profile_free(profile) }
        let matrix = profile.pointee.matrix_coefficients
        return profile.pointee.full_range_flag != 0
            && [heif_matrix_coefficients_ITU_R_BT_601_6, heif_matrix_coefficients_ITU_R_BT_470_6_System_B_G,
                heif_matrix_coefficients_unspecified].contains(matrix)
    }

    /// The file's own thumbnail of the primary image, if it is large enough to make ours from:
    /// its shorter side at least `size` (and at least the preview's size, when one is made) and
    /// its shape that of the photo (to a pixel), so that its centre square is the photo's.
    private func coveringThumbnail(of primary: OpaquePointer, width: Int, height: Int) -> OpaquePointer? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0 else { return nil }
        let preview = PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide)
        var ids = [heif_item_id](repeating: 0, count: min(count, 16))
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(ids.count)))
        var best: (handle: OpaquePointer, side: Int)?
        for id in ids.prefix(listed) {
            var handle: OpaquePointer?
            guard heif_image_handle_get_thumbnail(primary, id, &handle).code == heif_error_Ok, let handle else { continue }
            let thumbWidth = Int(heif_image_handle_get_width(handle)), thumbHeight = Int(heif_image_handle_get_height(handle))
            let side = min(thumbWidth, thumbHeight)
            let sameShape = abs(thumbWidth * height - thumbHeight * width) <= max(width, height)
            let coversPreview = preview.map { thumbWidth >= $0.width && thumbHeight >= $0.height } ?? true
            if side >= size, sameShape, coversPreview, thumbWidth < width, best.map({ side < $0.side }) ?? true {
                if let previous = best { heif_image_handle_release(previous.handle) }
                best = (handle, side)
            } else {
                heif_image_handle_release(handle)
            }
        }
        return best?.handle
    }

    /// Maps a libheif error to the codec's errors.
    private func check(_ error: heif_error) throws(ImageCodecError) {
        guard error.code != heif_error_Ok else { return }
        // libheif's messages may span lines: they end up in one-line rejection messages.
        let message = error.message.map { String(cString: $0) } ?? ""
        let words = message.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let detail = words.isEmpty ? "libheif error \(error.code.rawValue)" : words
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            throw .unsupported(format: format.displayName, detail: detail)
        default:
            throw .corrupt(detail: detail)
        }
    }
}
