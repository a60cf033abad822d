import Foundation
import Logging
import Testing
import UtensilSystemd

/// `JournaldLogHandler` against a real journald, read back with `journalctl`.
@Suite(.serialized, .tags(.spawnsProcesses)) struct JournaldEndToEndTests {
    @Test func entryArrivesWithEveryFieldIntact() async throws {
        let run = UUID().uuidString
        let utensilID = UUID().uuidString
        var logger = Logger(label: "utensild.test") {
            JournaldLogHandler(label: $0, identifier: "utensild-test", logLevel: .trace)
        }
        logger[metadataKey: "UTENSIL_TEST_RUN"] = "\(run)"
        let message: Logger.Message = "Spoon ingested\nsecond line: ünïcødé 🥄"
        let metadata: Logger.Metadata = [
            "MESSAGE_ID": "092aa93d51e24d3a8839ac8796bda321", "UTENSIL_ID": "\(utensilID)",
            "UTENSIL_NAME": "Spoon ünïcødé", "inbox-file.path": "kitchen/Spoon 1.jpg",
            "DURATION_MS": .stringConvertible(42), "NOTE": "line one\nline two",
        ]

        let entry = try await Journald.whileRunning {
            let line = #line + 1
            logger.notice(message, metadata: metadata)
            let entry = try await Self.entry(matching: "UTENSIL_TEST_RUN=\(run)")
            return (entry: entry, line: line)
        }

        let expected: [String: String] = [
            "MESSAGE": "Spoon ingested\nsecond line: ünïcødé 🥄",
            "PRIORITY": "5",
            "SYSLOG_IDENTIFIER": "utensild-test",
            "CODE_FILE": #fileID,
            "CODE_LINE": "\(entry.line)",
            "CODE_FUNC": #function,
            "MESSAGE_ID": "092aa93d51e24d3a8839ac8796bda321",
            "UTENSIL_ID": utensilID,
            "UTENSIL_NAME": "Spoon ünïcødé",
            "INBOX_FILE_PATH": "kitchen/Spoon 1.jpg",
            "DURATION_MS": "42",
            "NOTE": "line one\nline two",
            "UTENSIL_TEST_RUN": run,
            "_TRANSPORT": "journal",
            "_PID": "\(getpid())",
        ]
        for (name, value) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(entry.entry[name] == [value], "\(name)")
        }
        let unexpected = Set(entry.entry.keys).filter { !$0.hasPrefix("_") && expected[$0] == nil }
        #expect(unexpected.isEmpty, "fields nobody sent: \(unexpected.sorted())")
    }

    /// The one entry `journalctl` finds for `match`, polled until journald has written it.
    static func entry(matching match: String) async throws -> [String: [String]] {
        var last: ChildProcess.Finished?
        let found = try await Deadline.poll(timeout: .seconds(20), every: .milliseconds(200)) { () async throws -> [[String: [String]]]? in
            let result = try await ChildProcess.run("/bin/journalctl", ["-o", "json", "--no-pager", match])
            last = result
            let entries = result.output.split(separator: "\n").compactMap { Self.fields(ofJSONLine: $0) }
            return entries.isEmpty ? nil : entries
        }
        let entries = try #require(found, "journalctl never showed \(match):\n\(last?.transcript ?? "")")
        try #require(entries.count == 1, "\(entries)")
        return entries[0]
    }

    /// `journalctl -o json` writes a value as a string, as an array of bytes when it is not
    /// printable, and as an array of those when a field occurs more than once.
    static func fields(ofJSONLine line: Substring) -> [String: [String]]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        func text(_ value: Any) -> String? {
            if let string = value as? String { return string }
            if let bytes = value as? [Int] { return String(decoding: bytes.map(UInt8.init), as: UTF8.self) }
            return nil
        }
        return object.mapValues { value in
            if let single = text(value) { return [single] }
            return (value as? [Any] ?? []).compactMap(text)
        }
    }
}
