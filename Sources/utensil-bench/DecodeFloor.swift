import CTurboJPEG
import UtensilCodec

/// The decode floor: libturbojpeg decoding a JPEG at the DCT scale utensild would pick for it,
/// into a buffer allocated once, with the same pixel format and flags — and nothing else (no
/// marker walk, no crop, no resampling, no encode, no I/O). No thumbnailer can beat it.
///
/// With a `previewLongSide`, the scale is the one that also covers the preview (as the
/// ingest's decode, which makes both, picks it).
struct DecodeFloor {
    let maker: ThumbnailMaker

    init(previewLongSide: Int = 0) {
        maker = ThumbnailMaker(request: ThumbnailRequest(previewLongSide: previewLongSide))
    }

    /// CPU milliseconds (this thread) to decode `bytes` once at utensild's scale.
    func decodeCPUms(_ bytes: [UInt8]) throws -> Double {
        guard let handle = tjInitDecompress() else { throw BenchError("tjInitDecompress failed") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, bytes, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0
        else { throw BenchError("not a JPEG libturbojpeg reads") }
        let scale = maker.jpegDecodeScale(width: Int(width), height: Int(height))
        let scaledWidth = (Int(width) * scale.numerator + scale.denominator - 1) / scale.denominator
        let scaledHeight = (Int(height) * scale.numerator + scale.denominator - 1) / scale.denominator
        var pixels = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * 3)
        let started = Measure.threadCPUms()
        let status = pixels.withUnsafeMutableBufferPointer { target in
            tjDecompress2(
                handle, bytes, UInt(bytes.count), target.baseAddress, Int32(scaledWidth), 0, Int32(scaledHeight),
                Int32(TJPF_RGB.rawValue), TJFLAG_LIMITSCANS)
        }
        let spent = Measure.threadCPUms() - started
        if status != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
            throw BenchError("decode failed: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return spent
    }

    /// CPU milliseconds (this thread) to decode `bytes` once at utensild's scale into what
    /// utensild decodes it to when the decode is the preview: a 4:2:0 JPEG into its Y, Cb and
    /// Cr planes (no chroma upsampling, no colour conversion), any other as ``decodeCPUms(_:)``.
    func planarDecodeCPUms(_ bytes: [UInt8]) throws -> Double {
        guard let handle = tjInitDecompress() else { throw BenchError("tjInitDecompress failed") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, bytes, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0
        else { throw BenchError("not a JPEG libturbojpeg reads") }
        guard subsampling == Int32(TJSAMP_420.rawValue) else { return try decodeCPUms(bytes) }
        let scale = maker.jpegDecodeScale(width: Int(width), height: Int(height))
        let scaledWidth = (Int(width) * scale.numerator + scale.denominator - 1) / scale.denominator
        let scaledHeight = (Int(height) * scale.numerator + scale.denominator - 1) / scale.denominator
        let chromaWidth = (scaledWidth + 1) / 2, chromaHeight = (scaledHeight + 1) / 2
        var luma = [UInt8](repeating: 0, count: chromaWidth * chromaHeight * 4)
        var blue = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
        var red = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
        var strides: [Int32] = [Int32(chromaWidth * 2), Int32(chromaWidth), Int32(chromaWidth)]
        let started = Measure.threadCPUms()
        let status = luma.withUnsafeMutableBufferPointer { luma in
            blue.withUnsafeMutableBufferPointer { blue in
                red.withUnsafeMutableBufferPointer { red in
                    var targets: [UnsafeMutablePointer<UInt8>?] = [luma.baseAddress, blue.baseAddress, red.baseAddress]
                    return tjDecompressToYUVPlanes(
                        handle, bytes, UInt(bytes.count), &targets, Int32(scaledWidth), &strides, Int32(scaledHeight),
                        TJFLAG_LIMITSCANS)
                }
            }
        }
        let spent = Measure.threadCPUms() - started
        if status != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
            throw BenchError("decode failed: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return spent
    }

    /// The DCT scale for a JPEG, as "num/denom".
    func scaleDescription(_ bytes: [UInt8]) -> String {
        guard let handle = tjInitDecompress() else { return "?" }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, bytes, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0
        else { return "?" }
        let scale = maker.jpegDecodeScale(width: Int(width), height: Int(height))
        return "\(scale.numerator)/\(scale.denominator)"
    }
}
