import Foundation
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel

@Suite("SQLite catalog")
struct SQLiteCatalogTests {
    let folder: URL
    let catalog: SQLiteCatalog

    init() throws {
        folder = try temporaryFolder("catalog")
        catalog = try SQLiteCatalog(path: folder.appendingPathComponent("utensils.sqlite").path)
    }

    func record(
        name: String, sha: String = UUID().uuidString, source: String? = UUID().uuidString,
        rejectNames: Bool = true, rejectContent: Bool = true
    ) -> UtensilRecord {
        let key = name.lowercased()
        return UtensilRecord(
            id: UUID(), name: name, nameKey: key, searchKey: key, fileExtension: "jpg",
            createdAt: Date(), width: 4032, height: 3024, bytes: 1234, sha256: sha, sourceKey: source,
            nameClaim: rejectNames ? key : nil, contentClaim: rejectContent ? sha : nil)
    }

    @Test func walWithFullSynchronousCommits() throws {
        #expect(try catalog.pragma("journal_mode") == "wal")
        #expect(try catalog.pragma("synchronous") == "2")  // FULL
    }

    @Test func insertThenReadBackEveryField() throws {
        let spoon = record(name: "Spoon")
        try catalog.insert(spoon)
        let read = try #require(try catalog.utensil(id: spoon.id))
        #expect(read.name == "Spoon")
        #expect(read.fileExtension == "jpg")
        #expect(read.width == 4032 && read.height == 3024 && read.bytes == 1234)
        #expect(abs(read.createdAt.timeIntervalSince(spoon.createdAt)) < 0.001)
        #expect(try catalog.count() == 1)
        #expect(try catalog.allIDs() == [spoon.id])
    }

    @Test func duplicateNamesAreRefusedBySQLite() throws {
        try catalog.insert(record(name: "Spoon"))
        #expect(throws: CatalogError.duplicateName(existing: "Spoon")) {
            try catalog.insert(record(name: "Spoon"))
        }
        #expect(try catalog.count() == 1)
    }

    @Test func duplicateNamesAreAllowedWhenTheRecordClaimsNothing() throws {
        try catalog.insert(record(name: "Spoon", rejectNames: false))
        try catalog.insert(record(name: "Spoon", rejectNames: false))
        #expect(try catalog.count() == 2)
    }

    @Test func duplicateContentIsRefusedBySQLite() throws {
        try catalog.insert(record(name: "Spoon", sha: "abc"))
        #expect(throws: CatalogError.duplicateContent(existing: "Spoon")) {
            try catalog.insert(record(name: "Fork", sha: "abc"))
        }
        try catalog.insert(record(name: "Knife", sha: "abc", rejectContent: false))
        #expect(try catalog.count() == 2)
    }

    @Test func theSameSourceIsNeverCommittedTwice() throws {
        try catalog.insert(record(name: "Spoon", source: "1:2:3:4"))
        #expect(throws: CatalogError.alreadyIngested) {
            try catalog.insert(record(name: "Fork", source: "1:2:3:4"))
        }
        #expect(try catalog.utensil(sourceKey: "1:2:3:4")?.name == "Spoon")
    }

    @Test func decoderCrashesAreCountedAndCleared() throws {
        #expect(try catalog.decoderCrashes(sourceKey: "k") == 0)
        #expect(try catalog.recordDecoderCrash(sourceKey: "k") == 1)
        #expect(try catalog.recordDecoderCrash(sourceKey: "k") == 2)
        try catalog.clearDecoderCrashes(sourceKey: "k")
        #expect(try catalog.decoderCrashes(sourceKey: "k") == 0)
    }

    @Test func reopeningKeepsRowsAndDoesNotRemigrate() throws {
        try catalog.insert(record(name: "Spoon"))
        let again = try SQLiteCatalog(path: folder.appendingPathComponent("utensils.sqlite").path)
        #expect(try again.count() == 1)
        #expect(try again.integrityCheck() == ["ok"])
    }

    @Test func aLockedDatabaseIsReportedAsUnavailableNotAsADuplicate() throws {
        let path = folder.appendingPathComponent("utensils.sqlite").path
        let impatient = try SQLiteCatalog(path: path, busyTimeout: 0.05)
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        locker.arguments = [path]
        let input = Pipe()
        let output = Pipe()
        locker.standardInput = input
        locker.standardOutput = output
        try locker.run()
        defer {
            // End of input makes sqlite3 roll back and exit.
            try? input.fileHandleForWriting.close()
            locker.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        // Wait for the lock to be held: sqlite3 prints once its BEGIN EXCLUSIVE succeeded.
        let line = output.fileHandleForReading.availableData
        #expect(String(decoding: line, as: UTF8.self).contains("locked"))
        do {
            try impatient.insert(record(name: "Spoon"))
            Issue.record("the insert should have waited for the lock and given up")
        } catch {
            guard case .unavailable = error else {
                Issue.record("expected .unavailable, got \(error)")
                return
            }
        }
    }

    @Test func searchFindsSubstringsAndFollowsRenamesAndDeletes() throws {
        var torch = record(name: "Crème brûlée torch")
        torch.searchKey = "creme brulee torch"
        var knife = record(name: "Bread knife")
        knife.searchKey = "bread knife"
        try catalog.insert(torch)
        try catalog.insert(knife)
        func names(_ search: String) throws -> [String] {
            try catalog.list(search: search, sort: .name, limit: 10, after: nil).utensils.map(\.name)
        }
        #expect(try names("ulee to") == ["Crème brûlée torch"])
        #expect(try names("re") == ["Bread knife", "Crème brûlée torch"])  // Short: a scan.
        #expect(try names("e\"x") == [])
        // Names hold no control characters: a search with one (a NUL would end SQLite's
        // full-text query early) finds nothing and is no error.
        #expect(try names("\u{0}èx") == [])
        #expect(try names("to\u{1}") == [])
        _ = try catalog.rename(id: knife.id, name: "Bread saw", nameKey: "bread saw", searchKey: "bread saw", claim: true)
        #expect(try names("knife") == [])
        #expect(try names("d sa") == ["Bread saw"])
        _ = try catalog.delete(id: torch.id)
        #expect(try names("torch") == [])
    }

    @Test func pagesFollowEachOtherWithoutGapsOrRepeats() throws {
        for index in 0..<25 { try catalog.insert(record(name: "Spoon \(index)")) }
        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try catalog.list(search: nil, sort: .newestFirst, limit: 7, after: cursor)
            seen += page.utensils.map(\.name)
            cursor = page.next
        } while cursor != nil
        #expect(seen.count == 25 && Set(seen).count == 25)
        #expect(throws: CatalogError.invalidCursor) { try catalog.list(search: nil, sort: .name, limit: 5, after: "nonsense!") }
    }
}

@Suite("SQLite catalog migrations")
struct SQLiteCatalogMigrationTests {
    /// A catalog written before default-ignorable code points left the keys gets its keys
    /// recomputed on opening; two names that now clash both stay, one holding the claim.
    @Test func ignorableKeysAreRecomputedForOldCatalogs() throws {
        let folder = try temporaryFolder("catalog")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("utensils.sqlite").path
        func old(_ name: String) -> UtensilRecord {
            let key = name.lowercased()  // as the old rule left it: the invisible character inside
            return UtensilRecord(
                id: UUID(), name: name, nameKey: key, searchKey: key, fileExtension: "jpg", createdAt: Date(),
                width: 1, height: 1, bytes: 1, sha256: UUID().uuidString, sourceKey: nil, nameClaim: key, contentClaim: nil)
        }
        do {
            let catalog = try SQLiteCatalog(path: path)
            try catalog.insert(old("Spoon"))
            try catalog.insert(old("Sp\u{200B}oon"))
            try catalog.insert(old("Fo\u{AD}rk"))
            try catalog.write { try $0.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v2-ignorable-keys'") }
        }
        let catalog = try SQLiteCatalog(path: path)
        let rows = try catalog.all()
        #expect(rows.count == 3)
        #expect(Set(rows.map(\.nameKey)) == ["spoon", "fork"])
        #expect(rows.filter { $0.nameClaim == "spoon" }.count == 1)
        #expect(try catalog.list(search: "fork", sort: .name, limit: 10, after: nil).utensils.map(\.name) == ["Fo\u{AD}rk"])
    }
}
