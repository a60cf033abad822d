import Foundation
import Testing

/// `systemd/utensild.catalog`, installed into a temporary root and read back by `journalctl`.
@Suite struct JournalMessageCatalogTests {
    /// The ids of `UtensilCore.MessageID`, which this target does not link.
    static let messageIDs = [
        "092aa93d51e24d3a8839ac8796bda321", "d1c7c9574b2e4974941b108ff0f349c2",
        "65f426e627ff4ae085efb538672bd158", "97c9a2e4519744138761e1d40b9f21a1",
        "b735a5b3b772404981b292a5424d1041", "73ffb29a8cef4c3ea3a7f69b1b390a66",
        "d2f8f69b9eb54fdda97a59d2fc937115", "dc30006a3e914558bafb92863fbe1984",
        "3d444234d1b64778a80b80d87edff2b9", "1834f9bc30784de4a1ebec6951c9c85c",
        "5c0b1f6e8a7d4e3f9b2c4d6a8e0f1a37", "e41d7a9c2b6f4c08a5d3f7b1c9e2a604",
        "e36b4a466c9f4cc9bd2fe6f2b246ad3c",
    ]
    static let rejectedID = "d1c7c9574b2e4974941b108ff0f349c2"
    /// Every `reason` of a rejection sidecar, as the contract lists them.
    static let rejectionReasons = [
        "empty-name", "name-too-long", "name-has-line-break", "name-has-control-character", "name-not-utf8",
        "unsupported-type", "not-a-regular-file", "unreadable", "too-large", "too-many-pixels", "corrupt-image",
        "extension-mismatch", "duplicate-name", "duplicate-content", "never-settled", "decoder-crash", "invalid-category",
    ]

    /// The catalog file, found from this source file (through the scratch package's symlinks too).
    static var catalogPath: String {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("systemd/utensild.catalog").path
    }

    /// Runs `journalctl --root=<root> <argument>` and returns its stdout, failing on any complaint.
    static func journalctl(root: String, _ argument: String) async throws -> String {
        let result = try await ChildProcess.run("/bin/journalctl", ["--root=\(root)", argument])
        #expect(result.status == 0 && result.errors.isEmpty, "\(argument): \(result.transcript)")
        return result.output
    }

    @Test func journalctlCompilesAndListsEveryMessageID() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let folder = root.appending("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.catalogPath, toPath: folder + "/utensild.catalog")

        _ = try await Self.journalctl(root: root.path, "--update-catalog")
        let listed = try await Self.journalctl(root: root.path, "--list-catalog")
        let ids = listed.split(separator: "\n").map { String($0.prefix(32)) }
        #expect(ids.sorted() == Self.messageIDs.sorted(), "\(listed)")
        for line in listed.split(separator: "\n") {
            #expect(line.dropFirst(32).hasPrefix(" utensild: "), "\(line)")
        }

        let dumped = try await Self.journalctl(root: root.path, "--dump-catalog")
        let entries = Self.entries(dumped)
        #expect(Set(entries.keys) == Set(Self.messageIDs))
        for (id, text) in entries {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.contains { $0.hasPrefix("Subject: ") }, "\(id)")
            #expect(lines.contains("Defined-By: utensild"), "\(id)")
            #expect(lines.contains { $0.hasPrefix("Support: ") }, "\(id)")
            let body = lines.drop { !$0.isEmpty }.filter { !$0.isEmpty }
            #expect(body.count >= 4, "\(id) explains too little")
        }
    }

    @Test func rejectedExplainsReasonsPlacesAndCommands() throws {
        let catalog = try String(contentsOfFile: Self.catalogPath, encoding: .utf8)
        let rejected = try #require(Self.entries(catalog)[Self.rejectedID])
        for needed in ["@REJECT_REASON@", "@INBOX_FILE@", ".error.json", "utensilctl rejected", "utensilctl retry"]
            + Self.rejectionReasons
        {
            #expect(rejected.contains(needed), "\(needed)")
        }
    }

    /// Catalog text split at its `-- <id>` lines: id → the lines after it.
    static func entries(_ catalog: String) -> [String: String] {
        var entries: [String: String] = [:]
        var current: String?
        for line in catalog.split(separator: "\n", omittingEmptySubsequences: false) {
            if let match = line.wholeMatch(of: /-- ([0-9a-f]{32})/) {
                let id = String(match.output.1)
                current = id
                entries[id] = ""
            } else if let id = current {
                entries[id, default: ""] += line + "\n"
            }
        }
        return entries
    }
}
