/// Reads the orientation tag (0x0112 in IFD0) from an EXIF TIFF structure.
///
/// Bounds-checked at every read: hostile offsets and counts yield `nil`, never a trap.
enum ExifOrientationReader {
    /// `payload` is either a JPEG APP1 body ("Exif\0\0" + TIFF) or a bare TIFF structure
    /// (a PNG `eXIf` chunk). Returns 1…8, or `nil` when absent or invalid.
    static func orientation(in payload: UnsafeRawBufferPointer) -> Int? {
        var tiff = payload
        if payload.count >= 6, payload[0] == 0x45, payload[1] == 0x78, payload[2] == 0x69,
            payload[3] == 0x66, payload[4] == 0 {  // "Exif\0" + pad byte
            tiff = UnsafeRawBufferPointer(rebasing: payload[6...])
        }
        return orientation(inTIFF: tiff)
    }

    private static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        let reader = TIFFReader(bytes: tiff, bigEndian: bigEndian)
        guard reader.u16(at: 2) == 42, let ifd = reader.u32(at: 4).map(Int.init),
            let entryCount = reader.u16(at: ifd).map(Int.init)
        else { return nil }
        for index in 0..<min(entryCount, 1024) {
            let entry = ifd + 2 + index * 12
            guard let tag = reader.u16(at: entry) else { return nil }
            guard tag == 0x0112 else { continue }
            guard let type = reader.u16(at: entry + 2), let count = reader.u32(at: entry + 4), count >= 1
            else { return nil }
            let value: Int?
            switch type {
            case 3: value = reader.u16(at: entry + 8).map(Int.init)  // SHORT, the standard
            case 4: value = reader.u32(at: entry + 8).map(Int.init)  // LONG, seen in the wild
            default: value = nil
            }
            guard let value, (1...8).contains(value) else { return nil }
            return value
        }
        return nil
    }
}

/// Bounds-checked integer reads in one byte order.
private struct TIFFReader {
    let bytes: UnsafeRawBufferPointer
    let bigEndian: Bool

    func u16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(at offset: Int) -> UInt32? {
        guard let first = u16(at: offset), let second = u16(at: offset + 2) else { return nil }
        return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
    }
}
