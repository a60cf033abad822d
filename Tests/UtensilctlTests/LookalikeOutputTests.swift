import Foundation
import Testing
import UtensilControlProtocol
@testable import utensilctl

/// What `utensilctl` says about look-alikes: the events line of a copy's ingest, and the
/// `duplicates` table.
@Suite struct LookalikeOutputTests {
    static let whiskID = "2C3D4E5F-6A7B-4C8D-9E0F-1A2B3C4D5E6F"

    @Test func anIngestedCopySaysInItsEventLineWhichUtensilItLooksLike() {
        var copy = Samples.utensil("IMG-20261207-WA0003")
        let plain = EventInfo.ingested(copy, inboxFile: "IMG-20261207-WA0003.jpg", at: Samples.createdAt)
        #expect(!EventLine.render(plain, style: .plain).contains("copy"))

        copy.nearDuplicateOf = NearDuplicateInfo(id: Self.whiskID, name: "Whisk\u{1B}[31m", distance: 4)
        let line = EventLine.render(
            .ingested(copy, inboxFile: "IMG-20261207-WA0003.jpg", at: Samples.createdAt), style: .plain)
        #expect(line.hasSuffix("looks like a copy of Whisk\\u{1B}[31m"))
        #expect(line.contains("IMG-20261207-WA0003  ← IMG-20261207-WA0003.jpg"))
    }

    @Test func theDuplicatesTableSaysHowToMarkAPairThatIsNotACopy() {
        #expect(DuplicatesView.render([], style: .plain) == ["No two utensils look alike."])
        let pair = DuplicatePairInfo(
            copy: Samples.utensil("Whisk 07"), original: Samples.utensil("Whisk 12", id: Self.whiskID), distance: 12)
        let lines = DuplicatesView.render([pair], style: .plain)
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("Whisk 07  Whisk 12  ") && lines[1].hasSuffix(Self.whiskID))
        #expect(lines.last?.contains("`utensilctl duplicates --not-a-copy COPY LOOKS-LIKE` (names or ids)") == true)
    }
}
