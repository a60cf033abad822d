#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the JPEG segments before the first scan say, read by a bounds-checked walk.
struct JPEGMarkers {
    /// The SOFn marker byte (0xC0 baseline, 0xC2 progressive …), if one was found.
    var frameMarker: UInt8?
    /// Sample precision from the frame header (8 for everything libturbojpeg decodes).
    var precision: Int?
    /// EXIF orientation (1…8) from the first "Exif" APP1 segment, if valid.
    var exifOrientation: Int?
    /// An Adobe APP14 segment is present: CMYK samples are stored inverted.
    var hasAdobeMarker = false
    /// Each frame component's sampling factors (horizontal, vertical), from the frame header.
    var samplingFactors: [(h: Int, v: Int)] = []
    /// How many components the first scan holds (fewer than the frame's: one scan per component).
    var firstScanComponents: Int?

    /// Whether libjpeg must hold the coefficients of the whole image while decoding: a
    /// progressive frame, or a first scan that does not hold every component.
    var needsWholeCoefficientBuffer: Bool {
        frameMarker == 0xC2 || frameMarker == 0xCA
            || (firstScanComponents.map { $0 < samplingFactors.count } ?? false)
    }

    /// Walks the segments from SOI up to the first SOS as libjpeg does: bytes that are not a
    /// marker are skipped (libjpeg warns and carries on), and it stops quietly at a length it
    /// cannot see (libturbojpeg will then give the real diagnosis). Stopping at stray bytes
    /// instead would hide the frame type from the checks that libjpeg itself then decodes.
    init(_ bytes: UnsafeRawBufferPointer) {
        var position = 2
        while position + 4 <= bytes.count {
            guard bytes[position] == 0xFF else {
                position += 1
                continue
            }
            let marker = bytes[position + 1]
            if marker == 0xFF { position += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { position += 2; continue }
            if marker == 0xD9 { return }
            if marker == 0xDA {
                if position + 4 < bytes.count { firstScanComponents = Int(bytes[position + 4]) }
                return
            }
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let payloadStart = position + 4, payloadEnd = position + 2 + length
            guard length >= 2, payloadEnd <= bytes.count else { return }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadEnd])
            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                if frameMarker == nil {
                    frameMarker = marker
                    precision = payload.isEmpty ? nil : Int(payload[0])
                    samplingFactors = Self.samplingFactors(inFrame: payload)
                }
            case 0xE1 where exifOrientation == nil && Self.hasPrefix(payload, "Exif"):
                exifOrientation = ExifOrientationReader.orientation(in: payload)
            case 0xEE where Self.hasPrefix(payload, "Adobe"):
                hasAdobeMarker = true
            default:
                break
            }
            position = payloadEnd
        }
    }

    /// Why libturbojpeg cannot decode this frame type, if it cannot (checked before decoding).
    var unsupportedReason: String? {
        if let precision, precision != 8 { return "\(precision)-bit samples, only 8-bit JPEG is supported" }
        switch frameMarker {
        case 0xC3, 0xC7, 0xCB, 0xCF: return "lossless JPEG"
        case 0xC5, 0xC6, 0xCD, 0xCE: return "hierarchical JPEG"
        default: return nil
        }
    }

    /// The components' sampling factors: after precision, height, width and the count, three
    /// bytes per component (id, H << 4 | V, quantisation table).
    private static func samplingFactors(inFrame payload: UnsafeRawBufferPointer) -> [(h: Int, v: Int)] {
        guard payload.count >= 6 else { return [] }
        let count = min(Int(payload[5]), (payload.count - 6) / 3)
        return (0..<count).map { index in
            let factors = payload[6 + index * 3 + 1]
            return (h: max(Int(factors >> 4), 1), v: max(Int(factors & 0x0F), 1))
        }
    }

    private static func hasPrefix(_ payload: UnsafeRawBufferPointer, _ prefix: String) -> Bool {
        let prefix = Array(prefix.utf8)
        return payload.count >= prefix.count && zip(payload, prefix).allSatisfy { $0 == $1 }
    }

    /// What a walk over the whole marker structure, entropy-coded scans included, finds.
    struct Layout: Equatable {
        /// The walk reached an EOI marker; `false` means the file was cut short, whatever
        /// libjpeg's first warning said.
        var reachesEndOfImage = false
        /// SOS markers seen: each one makes libjpeg pass over every block of its components.
        var scans = 0
        /// Bytes of entropy-coded data after all SOS headers (padding segments not counted).
        var entropyCodedBytes = 0
    }

    /// Walks every segment and scan up to EOI, without trusting a length it cannot see.
    static func layout(_ bytes: UnsafeRawBufferPointer) -> Layout {
        var layout = Layout()
        guard let base = bytes.baseAddress else { return layout }
        let count = bytes.count
        var position = 2
        var scanDataStart: Int?  // where the entropy-coded data of the current scan began
        while position < count {
            // Find the next marker (skipping stray bytes, which libjpeg tolerates with a warning).
            guard let found = memchr(base + position, 0xFF, count - position) else { return layout }
            let markerStart = base.distance(to: UnsafeRawPointer(found))
            position = markerStart + 1
            while position < count, bytes[position] == 0xFF { position += 1 }
            guard position < count else { return layout }
            let marker = bytes[position]
            position += 1
            // After an SOS header comes entropy-coded data: its 0xFF bytes are followed by 0x00
            // (stuffing) or RSTn, which are not segment markers and so stay inside the scan.
            if marker == 0x00 || marker == 0x01 || marker == 0xD8 || (0xD0...0xD7).contains(marker) { continue }
            if let start = scanDataStart {
                layout.entropyCodedBytes += markerStart - start
                scanDataStart = nil
            }
            if marker == 0xD9 {
                layout.reachesEndOfImage = true
                return layout
            }
            guard position + 2 <= count else { return layout }
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            guard length >= 2 else { return layout }
            position += length
            if marker == 0xDA {
                layout.scans += 1
                scanDataStart = min(position, count)
            }
        }
        return layout
    }
}
