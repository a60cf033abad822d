/// A SQL `LIKE` pattern with `\` as its escape (`… LIKE ? ESCAPE '\'`), spelt the same way
/// for every catalog backend.
public enum LikePattern {
    /// Matches `term` anywhere in a text; `%`, `_` and `\` in it match themselves.
    public static func containing(_ term: String) -> String { "%" + escaped(term) + "%" }

    /// `text` with `%`, `_` and `\` escaped, so that each matches itself.
    public static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
