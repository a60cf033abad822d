import Foundation
import Logging
import Synchronization
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
@testable import UtensilStore
import UtensilTestSupport

/// Start-up reconciliation names rows whose files are gone, but a lost folder of thousands
/// of photos must not flood the journal.
@Suite("Reconciliation log")
struct ReconcilerLogTests {
    @Test func rowsMissingFilesAreNamedUpToALimitThenSummarised() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let settings = world.settings()
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let missing = UtensilStore.missingFilesNamedInLog + 7
        for index in 0..<missing {
            let key = "ladle \(index)"
            try catalog.insert(UtensilRecord(
                id: UUID(), name: "Ladle \(index)", nameKey: key, searchKey: key, fileExtension: "jpg",
                createdAt: Date(), width: 1, height: 1, bytes: 1, sha256: String(repeating: "0", count: 63) + "\(index % 10)",
                sourceKey: nil, nameClaim: nil, contentClaim: nil))
        }
        let lines = RecordedLines()
        let logger = Logger(label: "test") { _ in RecordingHandler(lines: lines) }

        let report = try UtensilStore(settings: settings, catalog: catalog, logger: logger).reconcile()

        #expect(report.rowsMissingFiles.count == missing)
        let errors = lines.messages.filter { $0.contains("missing its original, thumbnail or preview") }
        #expect(errors.count == UtensilStore.missingFilesNamedInLog)
        #expect(lines.messages.contains("7 more utensils are missing their original, thumbnail or preview; `utensilctl check` lists them all"))
    }
}

/// What a `kill -9` can leave in the state folder itself: start-up's writability probe.
@Suite("Reconciliation of the state folder")
struct ReconcilerStateFolderTests {
    @Test func aProbeLeftByAKillIsRemovedAndNothingElseIsTouched() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let settings = world.settings()
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let probe = world.state.appendingPathComponent(".tmp-probe-4242-17")
        try Data().write(to: probe)
        let folderNamedLikeOne = world.state.appendingPathComponent(".tmp-probe-planted")
        try FileManager.default.createDirectory(at: folderNamedLikeOne, withIntermediateDirectories: false)

        let report = try UtensilStore(settings: settings, catalog: catalog, logger: Logger(label: "test")).reconcile()

        #expect(report.temporariesRemoved == 1)
        #expect(!FileManager.default.fileExists(atPath: probe.path))
        #expect(FileManager.default.fileExists(atPath: folderNamedLikeOne.path))
        #expect(FileManager.default.fileExists(atPath: settings.catalogPath))
    }
}
