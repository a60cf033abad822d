import Testing
import UtensilCore

@Suite("File names as text")
struct FileNameEscapingTests {
    @Test(arguments: [
        (Array("Spoon!!.jpg".utf8), "Spoon!!.jpg"),
        (Array("Caf".utf8) + [0xE9] + Array(".jpg".utf8), #"Caf\xE9.jpg"#),
        (Array(#"back\slash"#.utf8), #"back\\slash"#),
        (Array(#"\xE9"#.utf8), #"\\xE9"#),  // text that looks like an escape stays text
        ([0xFF, 0xFE, 0x41], #"\xFF\xFEA"#),
        ([0x41, 0xC0, 0xAF], #"A\xC0\xAF"#),  // an overlong "/"
        ([0xED, 0xA0, 0x80], #"\xED\xA0\x80"#),  // a UTF-16 surrogate
        ([0x43, 0xE2, 0x82], #"C\xE2\x82"#),  // a cut-off character
        (Array("包丁 🔪\u{1B}".utf8), "包丁 🔪\u{1B}"),
    ] as [([UInt8], String)])
    func escapesAndComesBack(_ bytes: [UInt8], _ text: String) {
        #expect(FileNameEscaping.escaped(bytes) == text)
        #expect(FileNameEscaping.unescaped(text) == bytes)
    }

    @Test func readsWhatUtensilctlShowsAndLeavesStrayBackslashes() {
        #expect(FileNameEscaping.unescaped(#"Spoon\u{1B}.jpg"#) == Array("Spoon\u{1B}.jpg".utf8))
        #expect(FileNameEscaping.unescaped(#"a\b.jpg"#) == Array(#"a\b.jpg"#.utf8))
        #expect(FileNameEscaping.unescaped(#"end\"#) == Array(#"end\"#.utf8))
        #expect(FileNameEscaping.unescaped(#"\xZZ\u{}\u{110000}"#) == Array(#"\xZZ\u{}\u{110000}"#.utf8))
        #expect(FileNameEscaping.unescaped(#"nul\x00"#) == Array("nul".utf8) + [0])
    }

    @Test func everyByteStringSurvivesTheTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 1...255, using: &generator) }
            #expect(FileNameEscaping.unescaped(FileNameEscaping.escaped(bytes)) == bytes, "\(bytes)")
        }
    }
}
