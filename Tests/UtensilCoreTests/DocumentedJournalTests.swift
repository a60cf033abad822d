import Foundation
import Testing
import UtensilCore
import UtensilTestSupport

/// The journal catalog (systemd/utensild.catalog) has an entry for every `MessageID` and
/// explains every `RejectionReason`, and nothing else; the README and the guides name only
/// real message ids and reasons.
@Suite struct DocumentedJournalTests {

    static let catalog = RepositoryDocuments.text("systemd/utensild.catalog")

    @Test func theCatalogHasAnEntryForEveryMessageIDAndNoOther() {
        let entries = Set(RepositoryDocuments.matches(#"^-- ([0-9a-f]{32})$"#, in: Self.catalog))
        #expect(!entries.isEmpty, "systemd/utensild.catalog not found beside Package.swift")
        for id in MessageID.allCases where !entries.contains(id.rawValue) {
            Issue.record("MessageID \(id) (\(id.rawValue)) has no entry in systemd/utensild.catalog: add one")
        }
        for entry in entries where MessageID(rawValue: entry) == nil {
            Issue.record("systemd/utensild.catalog has an entry for \(entry), which is no MessageID: remove it or add the case")
        }
    }

    @Test func theCatalogExplainsEveryRejectionReasonAndNoOther() {
        // The list under "What the reasons mean": `  reason, reason - what to do` heads (a head
        // may go on over the next line, indented as much); explanations are indented more.
        let block = Self.catalog.components(separatedBy: "What the reasons mean").dropFirst().first?
            .components(separatedBy: "\n\n").first ?? ""
        var explained = Set<String>()
        var heads = ""
        for line in block.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            heads += (line.components(separatedBy: " - ").first ?? "") + ","
        }
        for name in heads.split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { explained.insert(trimmed) }
        }
        #expect(!explained.isEmpty, "systemd/utensild.catalog has no \"What the reasons mean\" list")
        for reason in RejectionReason.allCases where !explained.contains(reason.rawValue) {
            Issue.record("the rejection reason \(reason.rawValue) is not explained in systemd/utensild.catalog: add it to \"What the reasons mean\"")
        }
        for name in explained where RejectionReason(rawValue: name) == nil {
            Issue.record("systemd/utensild.catalog explains \(name), which is no RejectionReason: correct it")
        }
    }

    @Test func theDocumentsNameOnlyRealMessageIDsAndReasons() {
        for document in RepositoryDocuments.guides {
            let text = RepositoryDocuments.text(document)
            #expect(!text.isEmpty, "\(document) not found beside Package.swift")
            // An id cut short with "…" names the one it begins.
            for id in RepositoryDocuments.matches(#"MESSAGE_ID=([0-9a-f]+…?)"#, in: text)
            where !MessageID.allCases.contains(where: { id.hasSuffix("…") ? $0.rawValue.hasPrefix(id.dropLast()) : $0.rawValue == id }) {
                Issue.record("\(document) names MESSAGE_ID=\(id), which is no MessageID (UtensilCore/MessageID.swift): correct it")
            }
            for reason in RepositoryDocuments.matches(#"REJECT_REASON=([a-z0-9-]+)"#, in: text) where RejectionReason(rawValue: reason) == nil {
                Issue.record("\(document) names REJECT_REASON=\(reason), which is no RejectionReason: correct it")
            }
        }
    }
}
