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

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> DecodedSquare {
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
        let storedWidth = Int(width), storedHeight = Int(height)
        guard storedWidth * storedHeight <= maxPixels else {
            throw .tooManyPixels(width: storedWidth, height: storedHeight, limit: maxPixels)
        }

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

        let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let scale = DCTScale.smallestCovering(width: storedWidth, height: storedHeight, size: size)
        let scaledWidth = scale.scaled(storedWidth), scaledHeight = scale.scaled(storedHeight)
        let channels = isCMYK ? 4 : 3
        let pixelFormat = isCMYK ? TJPF_CMYK : TJPF_RGB
        var decoded = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * channels)
        let status = decoded.withUnsafeMutableBufferPointer { target in
            tjDecompress2(
                handle, base, UInt(bytes.count), target.baseAddress, Int32(scaledWidth), 0,
                Int32(scaledHeight), Int32(pixelFormat.rawValue), TJFLAG_LIMITSCANS)
        }
        try check(status, handle)

        var resampler = ThumbnailResampler(
            sourceWidth: scaledWidth, sourceHeight: scaledHeight,
            region: CenterSquare(width: storedWidth, height: storedHeight).scaled(by: scale.factor), size: size)
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
        return DecodedSquare(
            pixels: resampler.finish(), storedWidth: storedWidth, storedHeight: storedHeight,
            orientation: Orientation(exifValue: markers.exifOrientation))
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
