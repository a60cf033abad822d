import Logging
import Testing
@testable import UtensilSystemd

@Suite struct JournalEntryTests {
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "No space left on device" }
    }

    static func fields(_ entry: JournalEntry) -> [String: [String]] {
        entry.fields.reduce(into: [:]) { $0[$1.name, default: []].append($1.value) }
    }

    @Test func startsWithTheHandlersOwnFields() {
        let entry = JournalEntry(event: LogEvent.sample("two\nlines", level: .warning), identifier: "utensild", metadata: [:])
        #expect(
            entry.fields == [
                .init(name: "MESSAGE", value: "two\nlines"),
                .init(name: "PRIORITY", value: "4"),
                .init(name: "SYSLOG_IDENTIFIER", value: "utensild"),
                .init(name: "CODE_FILE", value: "UtensilIngest/Ingest.swift"),
                .init(name: "CODE_LINE", value: "42"),
                .init(name: "CODE_FUNC", value: "ingest(_:)"),
            ])
    }

    @Test func sendsMetadataUnderSanitisedNames() {
        let entry = JournalEntry(
            event: LogEvent.sample(), identifier: "utensild",
            metadata: [
                "MESSAGE_ID": "092aa93d51e24d3a8839ac8796bda321", "UTENSIL_ID": "6F1C", "DURATION_MS": .stringConvertible(12),
                "inbox-file.path": "kitchen/Spoon.jpg", "sizes": [.stringConvertible(1), "2"],
                "file": ["name": "Spoon.jpg", "stat": ["bytes": .stringConvertible(3)]], "empty": [:],
            ])
        let fields = Self.fields(entry)
        #expect(fields["MESSAGE_ID"] == ["092aa93d51e24d3a8839ac8796bda321"])
        #expect(fields["UTENSIL_ID"] == ["6F1C"])
        #expect(fields["DURATION_MS"] == ["12"])
        #expect(fields["INBOX_FILE_PATH"] == ["kitchen/Spoon.jpg"])
        #expect(fields["SIZES"] == ["[1, 2]"])
        #expect(fields["FILE_NAME"] == ["Spoon.jpg"])
        #expect(fields["FILE_STAT_BYTES"] == ["3"])
        #expect(fields["EMPTY"] == ["[:]"])
        #expect(entry.fields.count == 6 + 8)
    }

    @Test func metadataCannotReplaceTheHandlersFields() {
        let entry = JournalEntry(
            event: LogEvent.sample("real"), identifier: "utensild", metadata: ["message": "fake", "PRIORITY": "0"])
        let fields = Self.fields(entry)
        #expect(fields["MESSAGE"] == ["real"])
        #expect(fields["PRIORITY"] == ["6"])
        #expect(fields["X_MESSAGE"] == ["fake"])
        #expect(fields["X_PRIORITY"] == ["0"])
    }

    @Test func callMetadataBeatsProviderBeatsHandler() {
        let provider = Logger.MetadataProvider { ["a": "provider", "b": "provider"] }
        let merged = LogEvent.sample(metadata: ["a": "call"]).effectiveMetadata(
            handler: ["a": "handler", "b": "handler", "c": "handler"], provider: provider)
        #expect(merged == ["a": "call", "b": "provider", "c": "handler"])
    }

    @Test func anAttachedErrorBecomesFields() {
        let merged = LogEvent.sample(error: DiskFull()).effectiveMetadata(handler: [:], provider: nil)
        #expect(merged["error.message"] == "No space left on device")
        #expect(merged["error.type"] == "\(String(reflecting: DiskFull.self))")
    }
}
