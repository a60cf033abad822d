import Logging
import Testing
@testable import UtensilSystemd

@Suite struct PlainLineTests {
    @Test func writesLevelMessageAndSortedMetadata() {
        let line = PlainLine.format(
            level: .notice, message: "Ingested Spoon",
            metadata: ["UTENSIL_ID": "6F1C", "DURATION_MS": .stringConvertible(12), "file": ["name": "Spoon.jpg"]])
        #expect(line == "notice Ingested Spoon DURATION_MS=12 UTENSIL_ID=6F1C file.name=Spoon.jpg")
    }

    @Test func keepsEveryEntryOnOneLine() {
        let line = PlainLine.format(
            level: .error, message: "first\nsecond\r\tthird\u{1B}",
            metadata: ["path": "a b/\"c\"\\d\ne", "empty": "", "eq": "x=y", "bad key\n": "v"])
        #expect(line == #"error first\nsecond\r\tthird\u{1B} bad_key\n=v empty="" eq="x=y" path="a b/\"c\"\\d\ne""#)
        #expect(!line.contains("\n"))
    }

    @Test func startsWithATimestampOrForAJournalStreamWithThePriority() {
        let event = LogEvent(
            level: .warning, message: "hello", metadata: nil, source: "S", file: "F", function: "f", line: 1)
        let stamped = PlainStderrLogHandler(label: "test", style: .timestamped).line(for: event)
        #expect(stamped.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warning hello/) != nil, "\(stamped)")
        #expect(PlainStderrLogHandler(label: "test", style: .journalStream).line(for: event) == "<4>warning hello")
    }
}
