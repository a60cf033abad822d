import CTurboJPEG

/// Encodes RGB8 pixels as a baseline 4:2:0 JPEG with libturbojpeg.
enum JPEGEncoder {
    /// `fastDCT`: libjpeg's fast integer DCT rather than the accurate one (a little quicker,
    /// its rounding invisible at the qualities utensild uses).
    static func encode(
        rgb pixels: [UInt8], width: Int, height: Int, quality: Int, fastDCT: Bool = false
    ) throws(ImageCodecError) -> [UInt8] {
        guard width > 0, height > 0, pixels.count >= width * height * 3 else {
            throw .corrupt(detail: "nothing to encode")
        }
        guard let handle = tjInitCompress() else {
            throw .corrupt(detail: "libturbojpeg could not start an encoder: \(JPEGDecoder.message(nil))")
        }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: UInt = 0
        defer { if let output { tjFree(output) } }
        let status = pixels.withUnsafeBufferPointer { source in
            tjCompress2(
                handle, source.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue),
                &output, &outputSize, Int32(TJSAMP_420.rawValue), Int32(min(max(quality, 1), 100)),
                fastDCT ? TJFLAG_FASTDCT : 0)
        }
        guard status == 0, let output, outputSize > 0 else {
            throw .corrupt(detail: "the thumbnail could not be encoded: \(JPEGDecoder.message(handle))")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(outputSize)))
    }

    /// Encodes 4:2:0 planes as they are (no colour conversion, no chroma downsampling): the
    /// same baseline 4:2:0 JPEG ``encode(rgb:width:height:quality:fastDCT:)`` makes of their
    /// pixels.
    static func encode(planes: YUV420Planes, quality: Int, fastDCT: Bool = false) throws(ImageCodecError) -> [UInt8] {
        guard let handle = tjInitCompress() else {
            throw .corrupt(detail: "libturbojpeg could not start an encoder: \(JPEGDecoder.message(nil))")
        }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: UInt = 0
        defer { if let output { tjFree(output) } }
        var strides: [Int32] = [Int32(planes.lumaWidth), Int32(planes.chromaWidth), Int32(planes.chromaWidth)]
        let status = planes.luma.withUnsafeBufferPointer { luma in
            planes.blue.withUnsafeBufferPointer { blue in
                planes.red.withUnsafeBufferPointer { red in
                    var sources: [UnsafePointer<UInt8>?] = [luma.baseAddress, blue.baseAddress, red.baseAddress]
                    return tjCompressFromYUVPlanes(
                        handle, &sources, Int32(planes.width), &strides, Int32(planes.height),
                        Int32(TJSAMP_420.rawValue), &output, &outputSize, Int32(min(max(quality, 1), 100)),
                        fastDCT ? TJFLAG_FASTDCT : 0)
                }
            }
        }
        guard status == 0, let output, outputSize > 0 else {
            throw .corrupt(detail: "the preview could not be encoded: \(JPEGDecoder.message(handle))")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(outputSize)))
    }
}
