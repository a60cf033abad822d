import Testing
@testable import UtensilSystemd

@Suite struct JournalFieldNameTests {
    @Test(arguments: [
        ("MESSAGE_ID", "MESSAGE_ID"),
        ("UTENSIL_ID", "UTENSIL_ID"),
        ("UTENSIL_NAME", "UTENSIL_NAME"),
        ("INBOX_FILE", "INBOX_FILE"),
        ("REJECT_REASON", "REJECT_REASON"),
        ("DURATION_MS", "DURATION_MS"),
        ("utensil_id", "UTENSIL_ID"),
        ("inbox-file.path", "INBOX_FILE_PATH"),
        ("error.message", "ERROR_MESSAGE"),
        ("a  --  b", "A_B"),
        ("A__B", "A__B"),
        ("_HIDDEN", "HIDDEN"),
        ("__SYSTEMD_UNIT", "SYSTEMD_UNIT"),
        ("trailing.", "TRAILING"),
        ("2fa", "X_2FA"),
        ("_9lives", "X_9LIVES"),
        ("Größe", "GR_E"),
        ("", "X_UNNAMED"),
        ("...", "X_UNNAMED"),
        ("🥄", "X_UNNAMED"),
        (String(repeating: "k", count: 70), String(repeating: "K", count: 64)),
        ("7" + String(repeating: "a", count: 70), "X_7" + String(repeating: "A", count: 61)),
    ])
    func sanitises(key: String, expected: String) {
        #expect(JournalFieldName.sanitized(key) == expected)
    }

    @Test(arguments: ["x", "inbox-file.path", "_1", "ÄÖÜ", "a b c", "\n", String(repeating: "é-", count: 80)])
    func alwaysGivesAValidName(key: String) {
        let name = JournalFieldName.sanitized(key)
        #expect(name.wholeMatch(of: /[A-Z][A-Z0-9_]{0,63}/) != nil, "\(key) → \(name)")
    }
}
