import Foundation
import Testing
import UtensilTestSupport

/// The three-host test's oracle (``DropLedger``) on outcomes made up here: it passes the right
/// ones and names each kind of wrong one (lost, doubled, a wrong reason, two winners of a
/// clash, a utensil or rejection no drop accounts for, a wrong host).
@Suite struct DropLedgerTests {
    private let hostNames = ["kitchen-1", "kitchen-2"]
    private let photos = (0..<4).map { Data("photo \($0)".utf8) }

    private var ledger: DropLedger {
        var ledger = DropLedger()
        ledger.plain(0, "Spoon", photos[0])
        ledger.sameName("Ladle", on: [0, 1], [photos[1], photos[2]])
        ledger.samePhoto(photos[3], as: [(0, "Spatula"), (1, "Fish Slice")])
        return ledger
    }

    private func utensil(_ name: String, _ host: Int, _ photo: Int) -> DropLedger.Listed {
        DropLedger.Listed(id: "id-\(name)", name: name, host: hostNames[host], sha256: sha256Hex(photos[photo]))
    }

    /// The right outcome: Spoon, one Ladle, one of Spatula and Fish Slice; the others rejected.
    private var right: (utensils: [DropLedger.Listed], rejected: [[String: String]]) {
        ([utensil("Spoon", 0, 0), utensil("Ladle", 1, 2), utensil("Spatula", 0, 3)],
         [["Ladle.jpg": "duplicate-name"], ["Fish Slice.jpg": "duplicate-content"]])
    }

    @Test func theRightOutcomeHasNoProblems() {
        #expect(ledger.expectedUtensils == 3)
        #expect(ledger.expectedRejections == 2)
        #expect(ledger.problems(utensils: right.utensils, hostNames: hostNames, rejected: right.rejected).isEmpty)
    }

    @Test func aLostDropIsNamed() {
        let problems = ledger.problems(utensils: Array(right.utensils.dropFirst()), hostNames: hostNames, rejected: right.rejected)
        #expect(problems == ["Spoon.jpg on kitchen-1 is lost: neither a utensil nor a rejection"])
    }

    @Test func aDropThatIsAUtensilAndARejectionIsDoubled() {
        var rejected = right.rejected
        rejected[0]["Spoon.jpg"] = "corrupt-image"
        let problems = ledger.problems(utensils: right.utensils, hostNames: hostNames, rejected: rejected)
        #expect(problems.contains { $0.contains("Spoon.jpg on kitchen-1 is doubled") }, "\(problems)")
        #expect(problems.contains { $0.contains("rejected as corrupt-image, expected a utensil") }, "\(problems)")
    }

    @Test func twoUtensilsOfOneClashAreReported() {
        let utensils = right.utensils + [utensil("Ladle", 0, 1)]
        let problems = ledger.problems(utensils: utensils, hostNames: hostNames, rejected: [[:], right.rejected[1]])
        #expect(problems == ["name Ladle: 2 utensils, expected exactly one"], "\(problems)")
    }

    @Test func aWrongReasonAWrongHostAndAStrayAreReported() {
        var rejected = right.rejected
        rejected[1]["Fish Slice.jpg"] = "duplicate-name"
        rejected[1]["Fork.jpg"] = "corrupt-image"
        var utensils = right.utensils
        utensils[0] = utensil("Spoon", 1, 0)
        let problems = ledger.problems(utensils: utensils, hostNames: hostNames, rejected: rejected)
        #expect(problems.contains("utensil Spoon (id-Spoon) on kitchen-2 matches 0 drops"), "\(problems)")
        #expect(problems.contains("Fish Slice.jpg on kitchen-2 was rejected as duplicate-name, expected only as duplicate-content"), "\(problems)")
        #expect(problems.contains("kitchen-2 rejected Fork.jpg, which no drop there accounts for"), "\(problems)")
    }
}
