import UtensilCore

/// Text from the daemon made safe for a terminal: control characters, line and paragraph
/// separators, bidi controls and other invisible code points are shown as Swift escapes such
/// as `\u{1B}` (see `VisibleText`), so that a file name cannot move the cursor, recolour the
/// screen, reorder a line or hide a character.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        VisibleText.escaped(text)
    }
}
