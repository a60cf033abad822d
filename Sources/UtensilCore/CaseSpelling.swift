/// A Swift case name spelled as the outside world names it, by one rule instead of a raw value
/// written beside each case: `utensilAddedBy` → `UTENSIL_ADDED_BY` (journald fields),
/// `originalWritten` → `original-written` (fault steps). A run of capitals is one word
/// (`peerUID` → `PEER_UID`).
public enum CaseSpelling {
    /// The words of `name`: a new word starts at a capital that follows a lower-case letter or digit.
    public static func words(_ name: String) -> [String] {
        var words: [String] = []
        var previous: Character?
        for character in name {
            let startsAWord = character.isUppercase && (previous?.isLowercase == true || previous?.isNumber == true)
            if words.isEmpty || startsAWord { words.append("") }
            words[words.count - 1].append(character)
            previous = character
        }
        return words
    }

    /// `UTENSIL_ADDED_BY`.
    public static func screamingSnake(_ value: some Any) -> String {
        words(String(describing: value)).map { $0.uppercased() }.joined(separator: "_")
    }

    /// `original-written`.
    public static func kebab(_ value: some Any) -> String {
        words(String(describing: value)).map { $0.lowercased() }.joined(separator: "-")
    }
}
