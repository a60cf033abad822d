import Testing
@testable import UtensilCore

@Suite("Utensil names")
struct UtensilNameTests {
    static let family = "👨‍👩‍👧‍👦"

    struct ValidCase: Sendable, CustomTestStringConvertible {
        var fileName: String
        var name: String
        var testDescription: String { fileName }
    }

    @Test(arguments: [
        ValidCase(fileName: "Spoon.jpg", name: "Spoon"),
        ValidCase(fileName: "  Ladle \u{3000}.png", name: "Ladle"),
        ValidCase(fileName: "\tWhisk\t.jpeg", name: "Whisk"),
        ValidCase(fileName: "Spoon.big.jpg", name: "Spoon.big"),
        ValidCase(fileName: "Cre\u{0300}me bru\u{0302}le\u{0301}e torch.jpg", name: "Crème brûlée torch"),
        ValidCase(fileName: "🥄 Löffel.jpg", name: "🥄 Löffel"),
        ValidCase(fileName: "\(family).jpg", name: family),
        ValidCase(fileName: "x.jpg", name: "x"),
        ValidCase(fileName: String(repeating: family, count: 100) + ".jpg", name: String(repeating: family, count: 100)),
        ValidCase(fileName: "❤️‍🔥 pan.png", name: "❤️‍🔥 pan"),
        ValidCase(fileName: "包丁.jpg", name: "包丁"),
    ])
    func validNames(_ example: ValidCase) throws {
        let name = try UtensilName(fileNameBytes: Array(example.fileName.utf8))
        #expect(name.value == example.name)
        #expect(name.value.unicodeScalars.elementsEqual(example.name.precomposedStringWithCanonicalMapping.unicodeScalars))
    }

    @Test func nfdInputIsStoredAsNFC() throws {
        let nfd = "Cre\u{0300}me.jpg"
        let name = try UtensilName(fileNameBytes: Array(nfd.utf8))
        #expect(Array(name.value.unicodeScalars) == Array("Cr\u{00E8}me".unicodeScalars))
    }

    @Test func oneHundredFamilyEmojiFitAndOneHundredAndOneDoNot() throws {
        let hundred = String(repeating: Self.family, count: 100)
        #expect(try UtensilName(validating: hundred).value.count == 100)
        #expect(hundred.utf8.count > 100)  // Counted as characters, not bytes.
        #expect(throws: NameError.tooLong(characters: 101)) {
            try UtensilName(validating: hundred + Self.family)
        }
    }

    struct InvalidCase: Sendable, CustomTestStringConvertible {
        var label: String
        var bytes: [UInt8]
        var error: NameError
        var testDescription: String { label }
    }

    @Test(arguments: [
        InvalidCase(label: "only extension after trimming", bytes: Array("   .jpg".utf8), error: .empty),
        InvalidCase(label: "ideographic space only", bytes: Array("\u{3000}.png".utf8), error: .empty),
        InvalidCase(label: "101 characters", bytes: Array((String(repeating: "a", count: 101) + ".jpg").utf8), error: .tooLong(characters: 101)),
        InvalidCase(label: "line feed", bytes: Array("Spoon\nFork.jpg".utf8), error: .lineBreak),
        InvalidCase(label: "trailing line feed", bytes: Array("Spoon\n.jpg".utf8), error: .lineBreak),
        InvalidCase(label: "carriage return", bytes: Array("Spoon\rFork.jpg".utf8), error: .lineBreak),
        InvalidCase(label: "line separator", bytes: Array("Spoon\u{2028}Fork.jpg".utf8), error: .lineBreak),
        InvalidCase(label: "next line", bytes: Array("Spoon\u{85}Fork.jpg".utf8), error: .lineBreak),
        InvalidCase(label: "tab inside", bytes: Array("Spoon\tFork.jpg".utf8), error: .controlCharacter(0x09)),
        InvalidCase(label: "escape", bytes: Array("Spoon\u{1B}[31m.jpg".utf8), error: .controlCharacter(0x1B)),
        InvalidCase(label: "delete", bytes: Array("Spoon\u{7F}.jpg".utf8), error: .controlCharacter(0x7F)),
        InvalidCase(label: "right-to-left override", bytes: Array("Spoon\u{202E}gpj.png".utf8), error: .bidiOverride(0x202E)),
        InvalidCase(label: "left-to-right embedding", bytes: Array("\u{202A}Spoon.png".utf8), error: .bidiOverride(0x202A)),
        InvalidCase(label: "first strong isolate", bytes: Array("Spoon\u{2068}.png".utf8), error: .bidiOverride(0x2068)),
        InvalidCase(label: "invalid UTF-8", bytes: [0x53, 0x70, 0xFF, 0x6F, 0x6E] + Array(".jpg".utf8), error: .notUTF8),
        InvalidCase(label: "overlong UTF-8", bytes: [0xC0, 0xAF] + Array(".jpg".utf8), error: .notUTF8),
        InvalidCase(label: "lone surrogate (CESU)", bytes: [0xED, 0xA0, 0x80] + Array(".jpg".utf8), error: .notUTF8),
    ])
    func invalidNames(_ example: InvalidCase) {
        #expect(throws: example.error) { try UtensilName(fileNameBytes: example.bytes) }
    }

    @Test func zeroWidthJoinersAndVariationSelectorsStay() throws {
        let name = try UtensilName(validating: "❤️‍🔥")
        #expect(name.value.unicodeScalars.contains("\u{200D}"))
        #expect(name.value.unicodeScalars.contains("\u{FE0F}"))
        #expect(name.value.count == 1)
    }

    @Test(arguments: ["\u{200B}", "\u{200C}", "\u{200E}", "\u{200F}", "\u{2060}", "\u{FEFF}", "\u{AD}", "\u{180E}", "\u{3164}"])
    func defaultIgnorablesDoNotCountInTheKeys(_ invisible: String) throws {
        let hidden = try UtensilName(validating: "Sp\(invisible)oon")
        #expect(hidden.value.unicodeScalars.count == 6, "the name keeps what was dropped")
        #expect(hidden.uniquenessKey == (try UtensilName(validating: "spoon")).uniquenessKey)
        #expect(hidden.searchKey == "spoon")
        #expect(throws: NameError.empty) { try UtensilName(validating: invisible + invisible) }
        #expect(try UtensilName(validating: invisible + " Spoon").value == "Spoon")
    }

    @Test func emojiSequencesKeepTheirJoinersButShareKeysWithTheirParts() throws {
        let family = try UtensilName(validating: "👨‍👩‍👧")
        let people = try UtensilName(validating: "👨👩👧")
        #expect(family.value.count == 1 && people.value.count == 3)
        #expect(family.uniquenessKey == people.uniquenessKey)
        #expect(try UtensilName(validating: "❤️").uniquenessKey == (try UtensilName(validating: "❤")).uniquenessKey)
        #expect(throws: NameError.empty) { try UtensilName(validating: "\u{200D}\u{FE0F}") }
    }

    @Test func uniquenessKeyFoldsCaseAndNormalisation() throws {
        let a = try UtensilName(validating: "Spoon")
        let b = try UtensilName(validating: "sPOON")
        #expect(a.uniquenessKey == b.uniquenessKey)
        let nfc = try UtensilName(validating: "Crème")
        let nfd = try UtensilName(validating: "CRE\u{0300}ME")
        #expect(nfc.uniquenessKey == nfd.uniquenessKey)
        #expect(try UtensilName(validating: "Creme").uniquenessKey != nfc.uniquenessKey)
    }

    @Test func searchKeyFoldsAccents() throws {
        #expect(try UtensilName(validating: "Crème brûlée torch").searchKey == "creme brulee torch")
    }

    @Test func everyErrorMapsToAContractReasonAndOneSentence() {
        let errors: [NameError] = [.empty, .tooLong(characters: 120), .lineBreak, .controlCharacter(9), .bidiOverride(0x202E), .notUTF8]
        for error in errors {
            #expect(error.message.hasSuffix("."))
            #expect(!error.message.contains("\n"))
            #expect(RejectionReason.allCases.contains(error.reason))
        }
    }
}
