import Foundation
import Logging
import Testing
@testable import UtensilSystemd

/// `log_format = "json"`: each entry one line holding one JSON object, journald's fields as keys.
@Suite struct JSONLineTests {
    /// The line parsed by Foundation's JSON reader (not by the code under test).
    static func object(_ line: String) throws -> [String: Any] {
        #expect(!line.contains("\n") && !line.contains("\r"), "\(line)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    static func line(_ event: LogEvent, handler: JSONLinesLogHandler = .init(label: "test")) -> String {
        handler.line(for: event, timestamp: "2026-11-28T10:11:12.345Z")
    }

    @Test func holdsTheJournalFieldsAndATimestamp() throws {
        let metadata: Logger.Metadata = [
            "MESSAGE_ID": "092aa93d51e24d3a8839ac8796bda321", "UTENSIL_ID": "6F1C", "UTENSIL_NAME": "Slotted spoon",
            "INBOX_FILE": "Slotted spoon.jpg", "DURATION_MS": .stringConvertible(12), "UTENSIL_ADDED_BY": "alice",
            "UTENSIL_CATEGORY": "Spoons", "UTENSIL_HOST": "kitchen-1", "REJECT_REASON": "corrupt-image",
            "file": ["name": "Spoon.jpg"],
        ]
        var handler = JSONLinesLogHandler(label: "test", identifier: "utensild-test")
        handler[metadataKey: "UTENSIL_HOST"] = "overridden by the call"
        let line = Self.line(LogEvent.sample("Ingested Slotted spoon.jpg", metadata: metadata), handler: handler)
        #expect(line.hasPrefix(#"{"TIMESTAMP":"2026-11-28T10:11:12.345Z","MESSAGE":"Ingested Slotted spoon.jpg","PRIORITY":"6","#), "\(line)")
        let object = try Self.object(line)
        let expected: [String: String] = [
            "TIMESTAMP": "2026-11-28T10:11:12.345Z", "MESSAGE": "Ingested Slotted spoon.jpg", "PRIORITY": "6",
            "SYSLOG_IDENTIFIER": "utensild-test", "CODE_FILE": "UtensilIngest/Ingest.swift", "CODE_LINE": "42",
            "CODE_FUNC": "ingest(_:)", "MESSAGE_ID": "092aa93d51e24d3a8839ac8796bda321", "UTENSIL_ID": "6F1C",
            "UTENSIL_NAME": "Slotted spoon", "INBOX_FILE": "Slotted spoon.jpg", "DURATION_MS": "12",
            "UTENSIL_ADDED_BY": "alice", "UTENSIL_CATEGORY": "Spoons", "UTENSIL_HOST": "kitchen-1",
            "REJECT_REASON": "corrupt-image", "FILE_NAME": "Spoon.jpg",
        ]
        #expect(object as? [String: String] == expected, "\(line)")
    }

    /// As journald stores it: syslog's numbers, as strings (`journalctl -o json` writes them so).
    @Test(arguments: [
        (Logger.Level.trace, "7"), (.debug, "7"), (.info, "6"), (.notice, "5"), (.warning, "4"), (.error, "3"),
        (.critical, "2"),
    ])
    func priorityIsJournaldsNumberForTheLevel(level: Logger.Level, priority: String) throws {
        let object = try Self.object(Self.line(LogEvent.sample(level: level)))
        #expect(object["PRIORITY"] as? String == priority)
    }

    /// Whatever a message or a value holds, the line is valid JSON, one line, and reads back as
    /// exactly what was logged (bytes that were not UTF-8 as U+FFFD).
    @Test func escapesWhateverTheTextHolds() throws {
        let notUTF8 = String(decoding: [0x53, 0xFF, 0xFE, 0xC3, 0x28, 0x6F], as: UTF8.self)
        let texts = [
            #"say "cheese" \ back\slash"#, "two\nlines\r\nand\ttab", "nul\u{0}bell\u{7}esc\u{1B}[31mdel\u{7F}",
            "line\u{2028}separator\u{2029}", "bidi \u{202E}gpj.exe\u{202C} zero\u{200B}width", "cook 👩‍🍳 ❤️ 🥄",
            notUTF8, "C1 \u{85}\u{9F}", "tag \u{E0041}", "",
        ]
        for text in texts {
            let line = Self.line(LogEvent.sample("\(text)", metadata: ["UTENSIL_NAME": .string(text), text: "key"]))
            let object = try Self.object(line)
            #expect(object["MESSAGE"] as? String == text, "\(line)")
            #expect(object["UTENSIL_NAME"] as? String == text, "\(line)")
            // Nothing that moves the cursor or reorders text is written as itself.
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" || $0 == "\u{2028}" })
        }
        #expect(notUTF8.contains("\u{FFFD}"))
        let line = Self.line(LogEvent.sample("a\u{0}b\u{202E}c\u{E0041}\"\\\n"))
        #expect(line.contains(#""MESSAGE":"a\u0000b\u202Ec\uDB40\uDC41\"\\\n""#), "\(line)")
        // An emoji sequence keeps its joiner as it is, so it still reads as one picture.
        #expect(Self.line(LogEvent.sample("👩‍🍳")).contains("👩‍🍳"))
    }

    /// A metadata key can neither replace the handler's own fields nor make a key appear twice.
    @Test func metadataNeverReplacesTheHandlersFieldsOrRepeatsAKey() throws {
        let line = Self.line(LogEvent.sample(
            "real", level: .error,
            metadata: ["MESSAGE": "fake", "priority": "0", "timestamp": "1970", "inbox-file": "a", "inbox.file": "b"]))
        let object = try Self.object(line)
        #expect(object["MESSAGE"] as? String == "real")
        #expect(object["PRIORITY"] as? String == "3")
        #expect(object["TIMESTAMP"] as? String == "2026-11-28T10:11:12.345Z")
        #expect(object["X_MESSAGE"] as? String == "fake")
        #expect(object["X_PRIORITY"] as? String == "0")
        #expect(object["X_TIMESTAMP"] as? String == "1970")
        // Two keys with one journal name: one key, both values, as `journalctl -o json` shows them.
        #expect(object["INBOX_FILE"] as? [String] == ["a", "b"], "\(line)")
        #expect(line.components(separatedBy: #""INBOX_FILE":"#).count == 2)
    }

    @Test func anAttachedErrorIsTwoFields() throws {
        struct DiskFull: Error, CustomStringConvertible { var description: String { "No space left on device" } }
        let object = try Self.object(Self.line(LogEvent.sample(error: DiskFull())))
        #expect(object["ERROR_MESSAGE"] as? String == "No space left on device")
        #expect((object["ERROR_TYPE"] as? String)?.hasSuffix("DiskFull") == true)
    }

    @Test func isStampedInUTCWithMilliseconds() throws {
        let object = try Self.object(JSONLinesLogHandler(label: "test").line(for: LogEvent.sample()))
        let stamp = try #require(object["TIMESTAMP"] as? String)
        #expect(stamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(stamp)")
    }

    @Test func theJSONDestinationMakesThisHandler() throws {
        let made = LogDestination.jsonLines.handlerFactory(identifier: "x", logLevel: .notice, environment: [:])("label")
        let handler = try #require(made as? JSONLinesLogHandler)
        #expect(handler.identifier == "x")
        #expect(handler.logLevel == .notice)
    }
}
