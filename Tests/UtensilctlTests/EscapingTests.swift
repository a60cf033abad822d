import Testing
@testable import utensilctl

@Suite struct EscapingTests {
    @Test(arguments: [
        ("Spoon", "Spoon"),
        ("Spoon\u{1B}[31mRED", "Spoon\\u{1B}[31mRED"),
        ("a\nb\rc\td", "a\\u{A}b\\u{D}c\\u{9}d"),
        ("\u{0}\u{7F}\u{85}\u{9B}", "\\u{0}\\u{7F}\\u{85}\\u{9B}"),
        ("evil\u{202E}gpj.exe", "evil\\u{202E}gpj.exe"),
        ("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}"),
        ("line\u{2028}break", "line\\u{2028}break"),
        ("Löffel 🥄 スプーン", "Löffel 🥄 スプーン"),
        ("👩‍🍳", "👩‍🍳"),  // the joiner is not a control to escape
        ("back\\slash", "back\\slash"),
    ])
    func escapes(_ raw: String, _ shown: String) {
        #expect(TerminalText.escaped(raw) == shown)
    }

    @Test func escapedTextHasNoControlBytes() {
        let hostile = String(decoding: (0...0x7F).map { UInt8($0) }, as: UTF8.self) + "\u{80}\u{9F}"
        let escaped = TerminalText.escaped(hostile)
        #expect(escaped.unicodeScalars.allSatisfy { !TerminalText.needsEscape($0) })
    }
}
