import Testing
import UtensilCore

/// Names spelled from case names by one rule stay exactly the names the contract and the
/// journal already use.
@Suite struct CaseSpellingTests {
    @Test func journalFieldsKeepTheirNames() {
        #expect(JournalField.allCases.map(\.rawValue) == [
            "MESSAGE_ID", "UTENSIL_ID", "UTENSIL_NAME", "UTENSIL_CATEGORY", "UTENSIL_ADDED_BY", "INBOX_FILE",
            "REJECT_REASON", "DURATION_MS", "REJECTED_AS", "RETRY_REASON", "SOURCE_KEY", "RECOVERY_STEP",
            "PURGED_COUNT", "PEER_UID", "PEER_PID", "CHANGED_BY", "CHANGED_VIA", "HOOK", "HOOK_PROGRAM",
            "HOOK_OUTPUT", "HOOK_OUTPUT_BYTES", "HOOK_END",
        ])
        #expect(JournalField(rawValue: "UTENSIL_ADDED_BY") == .utensilAddedBy)
        #expect(JournalField(rawValue: "utensil_added_by") == nil)
    }

    @Test(arguments: [
        ("originalWritten", "original-written"), ("deleteFilesStaged", "delete-files-staged"), ("opened", "opened"),
    ])
    func kebab(_ name: String, _ spelled: String) {
        #expect(CaseSpelling.kebab(name) == spelled)
    }

    @Test func aRunOfCapitalsIsOneWord() {
        #expect(CaseSpelling.words("peerUID") == ["peer", "UID"])
        #expect(CaseSpelling.screamingSnake("durationMS") == "DURATION_MS")
        #expect(CaseSpelling.screamingSnake("hookOutputBytes") == "HOOK_OUTPUT_BYTES")
    }
}
