import Testing
@testable import utensilctl

@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("", 0),
        ("Spoon", 5),
        ("Löffel", 6),  // precomposed ö
        ("Lo\u{308}ffel", 6),  // o + combining diaeresis
        ("e\u{301}\u{302}", 1),  // stacked combining marks
        ("スプーン", 8),  // katakana: wide
        ("汤勺", 4),  // CJK ideographs
        ("ｓｐｏｏｎ", 10),  // fullwidth Latin
        ("ｶﾀｶﾅ", 4),  // halfwidth katakana: narrow
        ("숟가락", 6),  // Hangul syllables
        ("\u{1100}\u{1161}\u{11A8}", 2),  // Hangul jamo forming one syllable
        ("🥄", 2),  // emoji
        ("🥄🍴", 4),
        ("👩‍🍳", 2),  // ZWJ sequence: one picture
        ("👨‍👩‍👧‍👦", 2),
        ("👍🏽", 2),  // skin-tone modifier
        ("🇩🇪", 2),  // regional-indicator flag
        ("❤", 1),  // text presentation by default
        ("❤️", 2),  // emoji presentation selector
        ("1️⃣", 2),  // keycap
        ("a\u{200B}b", 2),  // zero-width space
        ("\u{FEFF}x", 1),  // byte-order mark
        ("Ωμέγα", 5),
        ("Spoon 🥄 スプーン", 17),
    ])
    func width(_ text: String, _ expected: Int) {
        #expect(DisplayWidth.of(text) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func truncatesByColumnsNotCharacters() {
        #expect(DisplayWidth.truncated("Spoon", to: 5) == "Spoon")
        #expect(DisplayWidth.truncated("Spoons", to: 5) == "Spoo…")
        #expect(DisplayWidth.truncated("スプーン", to: 5) == "スプ…")
        #expect(DisplayWidth.truncated("スプーン", to: 6) == "スプ…")
        #expect(DisplayWidth.truncated("👩‍🍳👩‍🍳👩‍🍳", to: 4) == "👩‍🍳…")
        #expect(DisplayWidth.of(DisplayWidth.truncated("汤勺汤勺汤勺", to: 7)) <= 7)
    }

    @Test func padsByColumns() {
        #expect(DisplayWidth.padded("汤", to: 4) == "汤  ")
        #expect(DisplayWidth.padded("7", to: 3, leading: true) == "  7")
        #expect(DisplayWidth.padded("toolong", to: 3) == "toolong")
    }
}
