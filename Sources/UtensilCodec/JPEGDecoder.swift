import CTurboJPEG

/// Decodes a JPEG with libturbojpeg straight to the scaled centre square.
///
/// Order of work: the marker walk (orientation, Adobe marker, frame type), the header (refuse
/// above `maxPixels` before allocating anything), a DCT-scaled decode at the smallest scale
/// that still covers the thumbnail, then the resampler.
struct JPEGDecoder {
    let size: Int
    let maxPixels: Int

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> DecodedSquare {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .corrupt(detail: "The file is empty.")
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
            handle, bytes)
        guard width > 0, height > 0 else { throw .corrupt(detail: "The JPEG header gives no image size.") }
        let storedWidth = Int(width), storedHeight = Int(height)
        guard storedWidth * storedHeight <= maxPixels else {
            throw .tooManyPixels(width: storedWidth, height: storedHeight, limit: maxPixels)
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
        try check(status, handle, bytes)

        var resampler = ThumbnailResampler(
            sourceWidth: scaledWidth, sourceHeight: scaledHeight,
            region: CenterSquare(width: storedWidth, height: storedHeight).scaled(by: scale.factor), size: size)
        var rgbRow = [UInt8](repeating: 0, count: isCMYK ? scaledWidth * 3 : 0)
        decoded.withUnsafeBufferPointer { pixels in
            for y in 0..<scaledHeight where resampler.needs(row: y) {
                let row = UnsafeBufferPointer(rebasing: pixels[(y * scaledWidth * channels)..<((y + 1) * scaledWidth * channels)])
                if isCMYK {
                    rgbRow.withUnsafeMutableBufferPointer { rgb in
                        CMYKConversion.convert(row, into: rgb, pixelCount: scaledWidth, inverted: markers.hasAdobeMarker)
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

    /// Throws for a failed libturbojpeg call unless it only warned about something harmless.
    private func check(_ status: Int32, _ handle: tjhandle, _ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) {
        guard status != 0 else { return }
        let message = Self.message(handle)
        guard tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) else {
            throw TurboJPEGDiagnosis.error(fatal: message)
        }
        if TurboJPEGDiagnosis.isDamaging(warning: message) { throw .corrupt(detail: message) }
        if !JPEGMarkers.reachesEndOfImage(bytes) {
            throw .corrupt(detail: "Premature end of JPEG file (after: \(message))")
        }
    }

    /// libturbojpeg's last message for this handle (thread-local for libjpeg's own messages).
    static func message(_ handle: tjhandle?) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown libturbojpeg error" }
        return String(cString: text)
    }
}
