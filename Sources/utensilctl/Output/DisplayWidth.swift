/// How many terminal columns text takes: East Asian wide and fullwidth characters and
/// emoji take 2, combining marks, format characters and the parts of a ZWJ sequence after
/// the first take 0, everything else 1. Counted per `Character`, at most 2 each.
enum DisplayWidth {
    static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    static func of(_ character: Character) -> Int {
        var width = 0
        var afterJoiner = false
        let scalars = character.unicodeScalars
        for scalar in scalars {
            defer { afterJoiner = scalar.value == 0x200D }
            if afterJoiner { continue }
            if scalar.value == 0xFE0F, let base = scalars.first, base.properties.isEmoji {
                width = 2  // emoji presentation selector: "❤️", "1️⃣"
                continue
            }
            width += of(scalar)
        }
        return min(width, 2)
    }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }  // Hangul vowels, finals
        if scalar.properties.isEmojiPresentation { return 2 }
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks, from Unicode's EastAsianWidth.txt.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
        0x17000...0x18CFF, 0x1AFF0...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    /// `text` cut to at most `columns` columns, ending in "…" when something was cut.
    static func truncated(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let width = of(character)
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// `text` padded with spaces to `columns` columns, on the right or (`leading`) the left.
    static func padded(_ text: String, to columns: Int, leading: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, columns - of(text)))
        return leading ? padding + text : text + padding
    }
}
