import Foundation

/// A validated utensil name: NFC-normalised, white space trimmed, 1…100 characters,
/// no line break, no other control character and no bidi override.
public struct UtensilName: Sendable, Hashable, CustomStringConvertible {
    /// The most characters (Swift `Character`s: an emoji sequence counts as one) a name may have.
    public static let maximumLength = 100

    /// The name as people see it.
    public let value: String

    /// The key under which names clash: NFC and case-folded (`Spoon` and `spoon` share it),
    /// without default-ignorable code points (`Sp<U+200B>oon` and `Spoon` share it too).
    public var uniquenessKey: String { Self.uniquenessKey(for: value) }

    /// The key searches match against: case- and accent-folded (`Crème` becomes `creme`),
    /// without default-ignorable code points.
    public var searchKey: String { Self.searchKey(for: value) }

    public var description: String { value }

    /// Validates a name typed by a person (for example by `utensilctl rename`).
    public init(validating raw: String) throws(NameError) {
        let normalised = raw.precomposedStringWithCanonicalMapping
        let trimmed = Self.trimmingHorizontalWhiteSpace(normalised)
        if Self.withoutIgnorables(trimmed).isEmpty { throw .empty }
        for character in trimmed where character.isNewline {
            throw .lineBreak
        }
        for scalar in trimmed.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                throw .controlCharacter(scalar.value)
            }
            if Self.isBidiControl(scalar.value) {
                throw .bidiOverride(scalar.value)
            }
        }
        let count = trimmed.count
        if count > Self.maximumLength { throw .tooLong(characters: count) }
        value = trimmed
    }

    /// Validates the name carried by a file name, given as the raw bytes Linux stores:
    /// the bytes must be valid UTF-8, and the name is everything before the last `.`.
    public init(fileNameBytes: some Collection<UInt8>) throws(NameError) {
        guard let fileName = String(validating: fileNameBytes, as: UTF8.self) else {
            throw .notUTF8
        }
        try self.init(validating: Self.stem(of: fileName))
    }

    /// Validates a folder name below the inbox as a category: the whole name, as raw bytes
    /// that must be UTF-8, under the same rules as a utensil's name.
    public init(folderNameBytes: some Collection<UInt8>) throws(NameError) {
        guard let folderName = String(validating: folderNameBytes, as: UTF8.self) else {
            throw .notUTF8
        }
        try self.init(validating: folderName)
    }

    /// The part of a file name before its last extension (`Spoon.big.jpg` → `Spoon.big`).
    public static func stem(of fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: ".") else { return fileName }
        return String(fileName[..<dot])
    }

    /// Default-ignorable code points (zero-width spaces and joiners, LRM/RLM, the word joiner,
    /// the BOM, soft hyphens, variation selectors …) leave both keys: invisible, they must not
    /// make two names that look the same different, nor hide a name from a search. So
    /// "👨‍👩‍👧" (joined by U+200D) and "👨👩👧" share their keys; the name shown keeps them.
    public static func uniquenessKey(for name: String) -> String {
        withoutIgnorables(name).precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    public static func searchKey(for text: String) -> String {
        withoutIgnorables(text).precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// The key `list --sort name` orders by: the search key (case and accents do not decide),
    /// then U+0001 and the exact name, so that ties fall back to the name as written. Names
    /// hold no control characters, so U+0001 sorts below anything that could follow.
    public static func sortKey(for name: String) -> String {
        searchKey(for: name) + "\u{1}" + name
    }

    /// `text` without its default-ignorable code points (Unicode's Default_Ignorable_Code_Point).
    public static func withoutIgnorables(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        result.append(contentsOf: text.unicodeScalars.lazy.filter { !$0.properties.isDefaultIgnorableCodePoint })
        return String(result)
    }

    /// U+202A…U+202E (embeddings and overrides) and U+2066…U+2069 (isolates).
    static func isBidiControl(_ value: UInt32) -> Bool {
        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// Trims Unicode white space that is not a line break (line breaks are refused, not
    /// hidden), and characters made only of default-ignorable code points (invisible).
    static func trimmingHorizontalWhiteSpace(_ text: String) -> String {
        let isBlank: (Character) -> Bool = { character in
            !character.isNewline && character.unicodeScalars.allSatisfy {
                // (A bidi control is refused, not trimmed away.)
                $0.properties.isWhitespace || ($0.properties.isDefaultIgnorableCodePoint && !isBidiControl($0.value))
            }
        }
        guard let first = text.firstIndex(where: { !isBlank($0) }),
              let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(text[first...last])
    }
}

/// Why a name cannot be a utensil's name.
public enum NameError: Error, Sendable, Equatable {
    case empty
    case tooLong(characters: Int)
    case lineBreak
    case controlCharacter(UInt32)
    case bidiOverride(UInt32)
    case notUTF8

    /// The rejection reason of the contract.
    public var reason: RejectionReason {
        switch self {
        case .empty: .emptyName
        case .tooLong: .nameTooLong
        case .lineBreak: .nameHasLineBreak
        case .controlCharacter, .bidiOverride: .nameHasControlCharacter
        case .notUTF8: .nameNotUTF8
        }
    }

    /// What is wrong with the name, as the end of a sentence ("its name …").
    public var problem: String {
        switch self {
        case .empty: "is empty once white space is trimmed"
        case .tooLong(let count): "has \(count) characters, more than the \(UtensilName.maximumLength) allowed"
        case .lineBreak: "contains a line break"
        case .controlCharacter(let value):
            "contains the invisible control character U+\(String(value, radix: 16, uppercase: true).leftPadded(to: 4))"
        case .bidiOverride(let value): "contains the text-direction override U+\(String(value, radix: 16, uppercase: true))"
        case .notUTF8: "is not valid UTF-8 text"
        }
    }

    /// One sentence that tells a person what to do.
    public var message: String {
        switch self {
        case .empty:
            "The name is empty once white space and invisible characters are left out; rename the file to what the utensil is called, for example Spoon.jpg."
        case .tooLong(let count):
            "The name has \(count) characters but at most \(UtensilName.maximumLength) are allowed; rename the file to something shorter."
        case .lineBreak:
            "The name contains a line break; rename the file so that its name is on one line."
        case .controlCharacter(let value):
            "The name contains the invisible control character U+\(String(value, radix: 16, uppercase: true).leftPadded(to: 4)); rename the file using only visible characters."
        case .bidiOverride(let value):
            "The name contains the text-direction override U+\(String(value, radix: 16, uppercase: true)), which can disguise a name; rename the file without it."
        case .notUTF8:
            "The file name is not valid UTF-8 text; rename it on a system that writes UTF-8 names."
        }
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
