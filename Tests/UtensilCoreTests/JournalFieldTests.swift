import Testing
import UtensilCore

@Suite struct JournalFieldTests {
    @Test func theContractsFieldsAreNamedAsItSays() {
        let names = Set(JournalField.allCases.map(\.rawValue))
        for field in ["MESSAGE_ID", "UTENSIL_ID", "UTENSIL_NAME", "INBOX_FILE", "REJECT_REASON", "DURATION_MS",
                      "UTENSIL_ADDED_BY", "UTENSIL_CATEGORY"] {
            #expect(names.contains(field), "\(field)")
        }
        #expect(names.count == JournalField.allCases.count)
    }

    /// journald takes upper-case letters, digits and underscores, not starting with an
    /// underscore or a digit, at most 64 characters; anything else it drops or renames.
    @Test(arguments: JournalField.allCases)
    func everyNameIsOneJournaldKeeps(_ field: JournalField) {
        #expect(field.rawValue.wholeMatch(of: /[A-Z][A-Z0-9_]{0,63}/) != nil, "\(field.rawValue)")
    }
}
