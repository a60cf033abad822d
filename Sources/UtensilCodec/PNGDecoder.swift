import CSPNG

/// Decodes a PNG with libspng straight to the scaled centre square, alpha composited on white.
///
/// Non-interlaced images are decoded row by row into the resampler, so a 24 MP PNG never needs
/// a full-size bitmap; Adam7-interlaced ones are decoded whole (each row is completed only by
/// the last pass).
/// `spng_set_png_buffer` keeps the caller's pointer, so all decoding happens inside this call.
struct PNGDecoder {
    let size: Int
    let maxPixels: Int
    /// The preview's long side; 0 for none.
    var previewSide = 0

    /// Per-chunk and total ancillary-chunk memory libspng may use.
    static let chunkSizeLimit = 16 << 20
    static let chunkCacheLimit = 64 << 20
    /// Every PNG is decoded to 8-bit RGBA (16-bit samples scaled, palettes and tRNS applied).
    static let outputFormat = Int32(SPNG_FMT_RGBA8.rawValue)

    /// Reads and checks the IHDR chunk (refusing above `maxPixels`), then runs `body` with the
    /// decoder context that read it.
    private func withHeader<Result>(
        _ bytes: UnsafeRawBufferPointer, _ body: (spng_ihdr, OpaquePointer) throws(ImageCodecError) -> Result
    ) throws(ImageCodecError) -> Result {
        guard let base = bytes.baseAddress, let context = spng_ctx_new(0) else {
            throw .corrupt(detail: "libspng could not start a decoder")
        }
        defer { spng_ctx_free(context) }
        let dimensionLimit = UInt32(clamping: min(max(maxPixels, 1), Int(Int32.max)))
        try check(spng_set_image_limits(context, dimensionLimit, dimensionLimit), bytes)
        try check(spng_set_chunk_limits(context, Self.chunkSizeLimit, Self.chunkCacheLimit), bytes)
        try check(spng_set_png_buffer(context, base, bytes.count), bytes)

        var header = spng_ihdr()
        try check(spng_get_ihdr(context, &header), bytes)
        let width = Int(header.width), height = Int(header.height)
        guard width > 0, height > 0 else { throw .corrupt(detail: "the PNG header gives no image size") }
        guard width * height <= maxPixels else {
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }
        return try body(header, context)
    }

    /// The bytes `decode` will allocate, from the IHDR chunk alone: the whole RGBA8 bitmap of an
    /// interlaced image, one row of it otherwise, and libspng's scanline buffers (three rows of
    /// up to 8 bytes a pixel). Ancillary chunks are bounded apart, by `chunkCacheLimit`.
    func decodeCost(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> Int {
        try withHeader(bytes) { header, _ in
            let width = Int(header.width), height = Int(header.height)
            let interlaced = header.interlace_method != UInt8(SPNG_INTERLACE_NONE.rawValue)
            let preview = PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide)
            return width * 4 * (interlaced ? height : 1) + 3 * width * 8 + (preview?.cost ?? 0)
        }
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> DecodedSquare {
        try withHeader(bytes) { header, context throws(ImageCodecError) in
            try decode(bytes, header: header, context: context)
        }
    }

    private func decode(
        _ bytes: UnsafeRawBufferPointer, header: spng_ihdr, context: OpaquePointer
    ) throws(ImageCodecError) -> DecodedSquare {
        let width = Int(header.width), height = Int(header.height)

        var resampler = RenditionResamplers(
            sourceWidth: width, sourceHeight: height, square: CenterSquare(width: width, height: height), size: size,
            preview: PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide))
        let rowBytes = width * 4
        let columns = resampler.sourceColumns
        var rgbRow = [UInt8](repeating: 0, count: columns.count * 3)
        func feed(_ rgba: UnsafeRawPointer, y: Int) {
            guard resampler.needs(row: y) else { return }
            rgbRow.withUnsafeMutableBufferPointer { rgb in
                let pixels = UnsafeRawBufferPointer(start: rgba + columns.lowerBound * 4, count: columns.count * 4)
                AlphaCompositing.onWhite(pixels, into: rgb, pixelCount: columns.count)
                resampler.add(row: UnsafeBufferPointer(rgb), y: y)
            }
        }

        // Interlaced rows arrive pass by pass, so they need the whole bitmap, which libspng fills
        // in one call (its progressive mode mistakes an image smaller than a pass for one that
        // ended: a 1×1 Adam7 file).
        let interlaced = header.interlace_method != UInt8(SPNG_INTERLACE_NONE.rawValue)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: rowBytes * (interlaced ? height : 1), alignment: 16)
        defer { buffer.deallocate() }
        if interlaced {
            let flags = Int32(SPNG_DECODE_TRNS.rawValue)
            try check(spng_decode_image(context, buffer.baseAddress, buffer.count, Self.outputFormat, flags), bytes)
        } else {
            try decodeRows(context, into: buffer, height: height, bytes, feed: feed)
        }
        // The chunks after the image data, up to IEND: a file cut there is truncated too.
        try check(spng_decode_chunks(context), bytes)
        guard Self.hasCompleteEnd(bytes) else { throw .corrupt(detail: "the PNG file ends before its IEND chunk") }
        if interlaced, let base = buffer.baseAddress {
            for y in 0..<height { feed(base.advanced(by: y * rowBytes), y: y) }
        }

        let (square, preview) = resampler.finish()
        return DecodedSquare(
            pixels: square, storedWidth: width, storedHeight: height,
            orientation: Orientation(exifValue: exifOrientation(context)), preview: preview)
    }

    /// Decodes a non-interlaced image row by row into the one-row `buffer`, handing each row to
    /// `feed` as it arrives.
    private func decodeRows(
        _ context: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer, height: Int,
        _ bytes: UnsafeRawBufferPointer, feed: (UnsafeRawPointer, Int) -> Void
    ) throws(ImageCodecError) {
        let flags = Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)
        try check(spng_decode_image(context, nil, 0, Self.outputFormat, flags), bytes)
        guard let target = buffer.baseAddress else { throw .corrupt(detail: "libspng returned rows out of order") }
        let endOfImage = Int32(SPNG_EOI.rawValue)
        var rowsDone = 0, finished = false
        while !finished {
            var info = spng_row_info()
            try check(spng_get_row_info(context, &info), bytes)
            guard Int(info.row_num) == rowsDone, rowsDone < height else {
                throw .corrupt(detail: "libspng returned rows out of order")
            }
            let status = spng_decode_row(context, target, buffer.count)
            if status != 0, status != endOfImage { try check(status, bytes) }
            feed(target, rowsDone)
            rowsDone += 1
            finished = status == endOfImage
        }
        guard rowsDone == height else { throw .corrupt(detail: "the PNG image data ends early") }
    }

    /// The orientation in an `eXIf` chunk (read after decoding: it may follow the image data).
    private func exifOrientation(_ context: OpaquePointer) -> Int? {
        var exif = spng_exif()
        guard spng_get_exif(context, &exif) == 0, let data = exif.data, exif.length > 0 else { return nil }
        return ExifOrientationReader.orientation(in: UnsafeRawBufferPointer(start: data, count: exif.length))
    }

    /// Maps a libspng status to the codec's errors.
    private func check(_ status: Int32, _ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) {
        guard status != 0 else { return }
        if status == Int32(SPNG_EUSER_WIDTH.rawValue) || status == Int32(SPNG_EUSER_HEIGHT.rawValue) {
            let (width, height) = Self.headerDimensions(bytes)
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }
        if status == Int32(SPNG_ECHUNK_LIMITS.rawValue) {
            throw .tooMuchMetadata(chunkLimit: Self.chunkSizeLimit, totalLimit: Self.chunkCacheLimit)
        }
        let text = spng_strerror(status).map { String(cString: $0) } ?? "libspng error \(status)"
        throw .corrupt(detail: text)
    }

    /// Width and height straight from the IHDR bytes (for the error when libspng refuses them).
    private static func headerDimensions(_ bytes: UnsafeRawBufferPointer) -> (Int, Int) {
        guard bytes.count >= 24 else { return (0, 0) }
        func u32(_ offset: Int) -> Int { (offset..<offset + 4).reduce(0) { $0 << 8 | Int(bytes[$1]) } }
        return (u32(16), u32(20))
    }

    /// Walks the chunk lengths to IEND and checks that it is there whole, CRC included
    /// (libspng stops reading at IEND's type).
    static func hasCompleteEnd(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var position = 8
        while position + 8 <= bytes.count {
            let length = (position..<position + 4).reduce(0) { $0 << 8 | Int(bytes[$1]) }
            let isEnd = bytes[position + 4] == 0x49 && bytes[position + 5] == 0x45
                && bytes[position + 6] == 0x4E && bytes[position + 7] == 0x44
            let next = position + 12 + length
            if isEnd { return next <= bytes.count }
            position = next
        }
        return false
    }
}
