import CTurboJPEG

/// Decodes a JPEG with libturbojpeg straight to the scaled centre square.
///
/// Order of work: the marker walk (orientation, Adobe marker, frame type), the header (refuse
/// above `maxPixels` before allocating anything), a check that the data reaches its EOI marker
/// (truncation), a DCT-scaled decode at the smallest scale that still covers the thumbnail,
/// then the resampler.
struct JPEGDecoder {
    let size: Int
    let maxPixels: Int
    /// The preview's long side; 0 for none.
    var previewSide = 0

    /// What the segments before the first scan say, checked (nothing is decoded yet).
    private struct Header {
        var markers: JPEGMarkers
        var width: Int
        var height: Int
        var isCMYK: Bool
        /// libturbojpeg's `TJSAMP_*` of the frame.
        var subsampling: Int32
    }

    /// Reads and checks the header (refusing above `maxPixels`), then runs `body` with a
    /// decompressor that has read it.
    private func withHeader<Result>(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (Header, tjhandle, UnsafePointer<UInt8>) throws(ImageCodecError) -> Result
    ) throws(ImageCodecError) -> Result {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .corrupt(detail: "the file is empty")
        }
        let markers = JPEGMarkers(bytes)
        if let reason = markers.unsupportedReason {
            throw .unsupported(format: SniffedFormat.jpeg.displayName, detail: reason)
        }
        guard let handle = tjInitDecompress() else {
            throw .corrupt(detail: "libturbojpeg could not start a decoder: \(Self.message(nil))")
        }
        defer { tjDestroy(handle) }

        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        try check(
            tjDecompressHeader3(handle, base, UInt(bytes.count), &width, &height, &subsampling, &colorspace),
            handle)
        guard width > 0, height > 0 else { throw .corrupt(detail: "the JPEG header gives no image size") }
        guard Int(width) * Int(height) <= maxPixels else {
            throw .tooManyPixels(width: Int(width), height: Int(height), limit: maxPixels)
        }
        let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        return try body(
            Header(markers: markers, width: Int(width), height: Int(height), isCMYK: isCMYK, subsampling: subsampling),
            handle, base)
    }

    /// The bytes `decode` will allocate, from the header alone: the output at the DCT scale and,
    /// when libjpeg must buffer the whole image (progressive, or one scan per component), every
    /// component's coefficients (64 two-byte coefficients per 8×8 block, rounded up to whole
    /// MCUs as libjpeg does).
    func decodeCost(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> Int {
        try withHeader(bytes) { header, _, _ in
            let (scale, preview, previewIsDecode) = plan(width: header.width, height: header.height, isCMYK: header.isCMYK)
            let channels = header.isCMYK ? 4 : 3
            let scaledWidth = scale.scaled(header.width)
            let output = scaledWidth * scale.scaled(header.height) * channels
            // libjpeg's strip buffers: a few MCU rows of the scaled width per component.
            let strips = scaledWidth * 64 * max(header.markers.samplingFactors.count, channels)
            let rotated = Orientation(exifValue: header.markers.exifOrientation) != .up
            let previewCost = preview?.cost(resampled: !previewIsDecode, rotated: rotated) ?? 0
            guard header.markers.needsWholeCoefficientBuffer else { return output + strips + previewCost }
            let maxH = header.markers.samplingFactors.map(\.h).max() ?? 1
            let maxV = header.markers.samplingFactors.map(\.v).max() ?? 1
            func roundedUp(_ value: Int, _ multiple: Int) -> Int { (value + multiple - 1) / multiple * multiple }
            let coefficients = header.markers.samplingFactors.reduce(0) { total, factors in
                let columns = roundedUp((header.width * factors.h + maxH * 8 - 1) / (maxH * 8), factors.h)
                let rows = roundedUp((header.height * factors.v + maxV * 8 - 1) / (maxV * 8), factors.v)
                return total + columns * rows * 64 * 2
            }
            return output + strips + coefficients + previewCost
        }
    }

    /// The DCT scale to decode at, the preview's size, and whether the decode itself is the
    /// preview. Without a preview: the smallest scale that still covers the thumbnail. With one:
    /// the largest scale whose long side fits `previewSide` (the whole photo when it fits), so
    /// that the decoded image is the preview and needs no resampling — unless that no longer
    /// covers the thumbnail's square (a panorama) or the image is CMYK; then the smallest scale
    /// covering both the thumbnail and a preview of exactly `previewSide`, resampled.
    func plan(width: Int, height: Int, isCMYK: Bool) -> (scale: DCTScale, preview: PreviewPlan?, previewIsDecode: Bool) {
        guard let preview = PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide) else {
            return (DCTScale.smallestCovering(width: width, height: height, size: size), nil, false)
        }
        let long = max(width, height)
        let fitting = DCTScale.available().filter { $0.scaled(long) <= previewSide }.max { $0.factor < $1.factor }
        if !isCMYK, let fitting, min(fitting.scaled(width), fitting.scaled(height)) >= min(size, width, height) {
            return (fitting, PreviewPlan(width: fitting.scaled(width), height: fitting.scaled(height)), true)
        }
        let minimum = PreviewPlan.minimumSource(width: width, height: height, size: size, preview: preview)
        let scale = DCTScale.smallestCovering(
            width: width, height: height, minimumWidth: minimum.width, minimumHeight: minimum.height)
        return (scale, preview, false)
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> DecodedSquare {
        try withHeader(bytes) { header, handle, base throws(ImageCodecError) in
            try decode(bytes, header: header, handle: handle, base: base)
        }
    }

    private func decode(
        _ bytes: UnsafeRawBufferPointer, header: Header, handle: tjhandle, base: UnsafePointer<UInt8>
    ) throws(ImageCodecError) -> DecodedSquare {
        let markers = header.markers
        let storedWidth = header.width, storedHeight = header.height

        // A file cut short is corrupt: say so before spending a decode on it (libjpeg would
        // pad the missing part with grey, and report only its first warning).
        let layout = JPEGMarkers.layout(bytes)
        guard layout.reachesEndOfImage else {
            throw .corrupt(detail: "Premature end of JPEG file: the data stops before the end-of-image marker")
        }

        // A progressive frame makes libjpeg hold coefficients for the whole image (2–6 bytes a
        // pixel). Huffman coding spends at least one bit per 8×8 block on DC alone, in at least
        // one component with half the blocks or more: scan data far shorter is a decoding bomb
        // (padding segments do not count).
        let pixels = storedWidth * storedHeight
        let blocks = ((storedWidth + 7) / 8) * ((storedHeight + 7) / 8)
        if markers.frameMarker == 0xC2, layout.entropyCodedBytes < blocks / 16 {
            throw .corrupt(
                detail: "the progressive JPEG data (\(layout.entropyCodedBytes) bytes of scans) is far too short for \(storedWidth)×\(storedHeight) pixels")
        }
        // Every scan is one more pass over the blocks of its components, however little data
        // it holds: bound the passes × pixels before decoding (libjpeg-turbo's own limit is 500
        // scans, which at 100 megapixels is minutes of work).
        let passBudget = maxPixels.multipliedReportingOverflow(by: Self.scanPassesAtMaxPixels)
        if layout.scans > 1, layout.scans > (passBudget.overflow ? Int.max : passBudget.partialValue) / pixels {
            throw .corrupt(
                detail: "the JPEG has \(layout.scans) scans over \(storedWidth)×\(storedHeight) pixels, more decoding work than utensild allows")
        }

        let isCMYK = header.isCMYK
        let (scale, preview, previewIsDecode) = plan(width: storedWidth, height: storedHeight, isCMYK: header.isCMYK)
        let scaledWidth = scale.scaled(storedWidth), scaledHeight = scale.scaled(storedHeight)
        if previewIsDecode, header.subsampling == Int32(TJSAMP_420.rawValue),
           min(scaledWidth, scaledHeight) >= 4 * size {
            return try decodePlanes(
                bytes, header: header, handle: handle, base: base, scale: scale, width: scaledWidth, height: scaledHeight)
        }
        let channels = isCMYK ? 4 : 3
        let pixelFormat = isCMYK ? TJPF_CMYK : TJPF_RGB
        var decoded = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * channels)
        let status = decoded.withUnsafeMutableBufferPointer { target in
            tjDecompress2(
                handle, base, UInt(bytes.count), target.baseAddress, Int32(scaledWidth), 0,
                Int32(scaledHeight), Int32(pixelFormat.rawValue), TJFLAG_LIMITSCANS)
        }
        try check(status, handle)

        var resampler = RenditionResamplers(
            sourceWidth: scaledWidth, sourceHeight: scaledHeight,
            square: CenterSquare(width: storedWidth, height: storedHeight).scaled(by: scale.factor), size: size,
            preview: previewIsDecode ? nil : preview)
        let columns = resampler.sourceColumns
        var rgbRow = [UInt8](repeating: 0, count: isCMYK ? columns.count * 3 : 0)
        decoded.withUnsafeBufferPointer { pixels in
            for y in 0..<scaledHeight where resampler.needs(row: y) {
                let rowStart = (y * scaledWidth + columns.lowerBound) * channels
                let row = UnsafeBufferPointer(rebasing: pixels[rowStart..<(rowStart + columns.count * channels)])
                if isCMYK {
                    rgbRow.withUnsafeMutableBufferPointer { rgb in
                        CMYKConversion.convert(row, into: rgb, pixelCount: columns.count, inverted: markers.hasAdobeMarker)
                        resampler.add(row: UnsafeBufferPointer(rgb), y: y)
                    }
                } else {
                    resampler.add(row: row, y: y)
                }
            }
        }
        let (square, resampled) = resampler.finish()
        let previewPixels = previewIsDecode
            ? DecodedPreview(pixels: decoded, width: scaledWidth, height: scaledHeight) : resampled
        return DecodedSquare(
            pixels: square, storedWidth: storedWidth, storedHeight: storedHeight,
            orientation: Orientation(exifValue: markers.exifOrientation), preview: previewPixels)
    }

    /// The decode of a 4:2:0 JPEG whose decode is its preview: into its planes, never converted
    /// to RGB (the preview is encoded from them); the thumbnail is made from the planes at half
    /// resolution (2 × 2 luma blocks with their chroma sample), which still covers it at least
    /// twice over — the condition `decode` checks — as Pillow's `reducing_gap` of 2 would.
    private func decodePlanes(
        _ bytes: UnsafeRawBufferPointer, header: Header, handle: tjhandle, base: UnsafePointer<UInt8>, scale: DCTScale,
        width: Int, height: Int
    ) throws(ImageCodecError) -> DecodedSquare {
        var planes = YUV420Planes(width: width, height: height)
        var luma = planes.luma, blue = planes.blue, red = planes.red
        planes.luma = []
        planes.blue = []
        planes.red = []
        var strides: [Int32] = [Int32(planes.lumaWidth), Int32(planes.chromaWidth), Int32(planes.chromaWidth)]
        let status = luma.withUnsafeMutableBufferPointer { luma in
            blue.withUnsafeMutableBufferPointer { blue in
                red.withUnsafeMutableBufferPointer { red in
                    var targets: [UnsafeMutablePointer<UInt8>?] = [luma.baseAddress, blue.baseAddress, red.baseAddress]
                    return tjDecompressToYUVPlanes(
                        handle, base, UInt(bytes.count), &targets, Int32(width), &strides, Int32(height), TJFLAG_LIMITSCANS)
                }
            }
        }
        try check(status, handle)
        (planes.luma, planes.blue, planes.red) = (luma, blue, red)

        let region = CenterSquare(width: header.width, height: header.height).scaled(by: scale.factor / 2)
        var resampler = RenditionResamplers(
            sourceWidth: planes.chromaWidth, sourceHeight: planes.chromaHeight, square: region, size: size, preview: nil)
        let columns = resampler.sourceColumns
        var row = [UInt8](repeating: 0, count: columns.count * 3)
        planes.withView { view in
            row.withUnsafeMutableBufferPointer { row in
                for y in 0..<view.halfHeight where resampler.needs(row: y) {
                    view.halfResolutionRow(y, columns: columns, into: row)
                    resampler.add(row: UnsafeBufferPointer(row), y: y)
                }
            }
        }
        return DecodedSquare(
            pixels: resampler.finish().square, storedWidth: header.width, storedHeight: header.height,
            orientation: Orientation(exifValue: header.markers.exifOrientation), preview: DecodedPreview(planes: planes))
    }

    /// A JPEG of `maxPixels` pixels may have this many scans; smaller ones proportionally more
    /// (up to libjpeg-turbo's own limit of 500). Encoders write about 10 (progressive) or 1–4.
    static let scanPassesAtMaxPixels = 40

    /// Throws for a failed libturbojpeg call unless it only warned about something harmless.
    private func check(_ status: Int32, _ handle: tjhandle) throws(ImageCodecError) {
        guard status != 0 else { return }
        let message = Self.message(handle)
        guard tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else {
            throw TurboJPEGDiagnosis.error(fatal: message)
        }
        if TurboJPEGDiagnosis.isDamaging(warning: message) { throw .corrupt(detail: message) }
    }

    /// libturbojpeg's last message for this handle (thread-local for libjpeg's own messages).
    static func message(_ handle: tjhandle?) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown libturbojpeg error" }
        return String(cString: text)
    }
}
