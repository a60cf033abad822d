/// Text from outside (file names above all) made safe to show on a terminal or in a log line:
/// every code point that could move the cursor, break the line, reorder it or hide in it is
/// shown as a Swift escape such as `\u{1B}` or `\u{200B}`. `utensilctl` shows text this way,
/// and so does the plain log on standard error.
///
/// Escaped: control characters (C0, DEL, C1), the line and paragraph separators, bidi
/// controls, every other default-ignorable code point (zero-width space and non-joiner,
/// word joiner, BOM, soft hyphen …) and every other format character (the interlinear
/// annotation marks U+FFF9–U+FFFB, which hide the text between them) — except the zero-width
/// joiner, variation selectors and tag characters inside an emoji sequence, which draw "👩‍🍳"
/// and "❤️" as they should.
public enum VisibleText {
    /// `text` with what could hide escaped; `special` may give its own escape for a code point
    /// first (a log line writes `\n` for a line feed, say).
    public static func escaped(_ text: String, special: (Unicode.Scalar) -> String? = { _ in nil }) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for character in text {
            let isEmojiSequence = character.unicodeScalars.count > 1 && character.unicodeScalars.contains { $0.properties.isEmoji }
            for scalar in character.unicodeScalars {
                if let replacement = special(scalar) {
                    result += replacement
                } else if hides(scalar, inEmojiSequence: isEmojiSequence) {
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Whether `scalar` is shown escaped.
    public static func hides(_ scalar: Unicode.Scalar, inEmojiSequence: Bool = false) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi controls
        case 0x200D, 0xFE00...0xFE0F, 0xE0020...0xE007F, 0xE0100...0xE01EF: return !inEmojiSequence
        default: return scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.generalCategory == .format
        }
    }
}
