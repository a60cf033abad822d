import Foundation
import Logging
import Synchronization
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
@testable import UtensilStore
import UtensilTestSupport

/// Start-up recovery, and rethumb's swap, never take an error for absence: a catalog that
/// cannot answer, a rename or a removal that fails stops that step with an error line carrying
/// `MESSAGE_ID=recoveryLeft` and the step's name, and leaves the files as they were; the next
/// start (the error gone) finishes the job. Each fault is real: another process that takes the
/// catalog's table away (a write lock would not do: in WAL mode it refuses writes, not the
/// reads these steps make; `RecoveryErrorTests` holds one against the decoder-crash step,
/// which writes), a folder where a file is to go.
@Suite("Recovery steps that stop on an error and leave the files")
struct RecoveryStepTests {
    /// A world with Spoon ingested and the store over it, logging into `lines`.
    struct Pantry {
        let world: TestWorld
        let settings: IngestSettings
        let spoon: UtensilRecord
        let lines = RecordedLines()

        init() throws {
            let world = try TestWorld()
            self.world = world
            settings = world.settings()
            let image = try TestImages.make([TestImages.jpeg(world.root.path + "/spoon", width: 120, height: 90, seed: 901)])[0]
            let engine = try world.engine(settings)
            try world.drop("Spoon.jpg", image)
            _ = try world.ingest("Spoon.jpg", with: engine)
            spoon = try #require(try SQLiteCatalog(path: settings.catalogPath).all().first)
        }

        /// A store over its own catalog connection that gives up on a lock after 0.1 s.
        func store(faults: FaultInjection = FaultInjection()) throws -> UtensilStore {
            let lines = self.lines
            return UtensilStore(
                settings: settings, catalog: try SQLiteCatalog(path: settings.catalogPath, busyTimeout: 0.1),
                logger: Logger(label: "test") { _ in RecordingHandler(lines: lines) }, faults: faults)
        }

        var original: URL { world.originals.appendingPathComponent("\(spoon.id.uuidString).jpg") }
        var thumbnail: URL { world.thumbnails.appendingPathComponent("\(spoon.id.uuidString).jpeg") }
        var preview: URL { world.previews.appendingPathComponent("\(spoon.id.uuidString).jpeg") }

        func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

        /// Runs `sql` on the catalog from another process, the sqlite3 CLI.
        func sqlite3(_ sql: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = ["-bail", settings.catalogPath, sql]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "sqlite3 \(sql)")
        }

        /// Takes the catalog's table of utensils away (renamed), so that every read of a row fails.
        func breakCatalog() throws { try sqlite3("ALTER TABLE utensil RENAME TO utensilAside;") }
        func mendCatalog() throws { try sqlite3("ALTER TABLE utensilAside RENAME TO utensil;") }

        /// The error lines that say a recovery step left something, with their step.
        var leftLines: [RecordedLine] {
            lines.all.filter { $0.level == .error && $0.metadata["MESSAGE_ID"] == MessageID.recoveryLeft.rawValue }
        }
    }

    @Test func aCatalogThatCannotAnswerLeavesStagedFilesForTheNextStart() throws {
        let pantry = try Pantry()
        defer { pantry.world.remove() }
        let store = try pantry.store()
        _ = try store.stageOut(pantry.spoon, in: try store.stateFolders())  // "Killed" before the delete's commit.
        let staged = pantry.world.files(in: pantry.world.staging)
        #expect(staged.count == 4)  // The original, thumbnail, preview and grid square.

        try pantry.breakCatalog()
        let report = try store.reconcile()
        try pantry.mendCatalog()

        #expect(report.leftForNextStart == 1 && report.rolledForward == 0 && report.rolledBack == 0, "\(report)")
        #expect(pantry.world.files(in: pantry.world.staging) == staged, "the staged files stay, neither moved nor removed")
        let left = try #require(pantry.leftLines.first, "\(pantry.lines.messages)")
        #expect(left.message.contains("Cannot ask the catalog about the staged files"), "\(left.message)")
        #expect(left.metadata["RECOVERY_STEP"] == "staging" && left.metadata["UTENSIL_ID"] == pantry.spoon.id.uuidString)

        let next = try store.reconcile()  // The catalog answers again.
        #expect(next.rolledForward == 1 && next.leftForNextStart == 0)
        #expect(pantry.exists(pantry.original) && pantry.exists(pantry.thumbnail) && pantry.exists(pantry.preview))
        #expect(pantry.world.stagedFiles().isEmpty)
    }

    @Test func aRenameThatFailsLeavesTheStagedOriginal() throws {
        let pantry = try Pantry()
        defer { pantry.world.remove() }
        let store = try pantry.store()
        let files = try store.stageOut(pantry.spoon, in: try store.stateFolders())
        // Where the original is to go back, a folder with something in it: rename(2) says EISDIR.
        try FileManager.default.createDirectory(at: pantry.original.appendingPathComponent("in-the-way"), withIntermediateDirectories: true)

        let report = try store.reconcile()

        #expect(report.leftForNextStart == 1 && report.rolledForward == 0, "\(report)")
        let stagedOriginal = String(decoding: files.original, as: UTF8.self)
        #expect(pantry.world.files(in: pantry.world.staging) == [stagedOriginal], "the original waits in staging/")
        let left = try #require(pantry.leftLines.first, "\(pantry.lines.messages)")
        #expect(left.message.contains("Cannot put the files of utensil Spoon into place"), "\(left.message)")
        #expect(left.message.contains("Is a directory"), "the log says why: \(left.message)")

        try FileManager.default.removeItem(at: pantry.original)  // A person clears the way.
        let next = try store.reconcile()
        #expect(next.rolledForward == 1 && pantry.exists(pantry.original) && pantry.world.stagedFiles().isEmpty)
    }

    @Test func aRemovalThatFailsIsLoggedAndNotCountedAsUndone() throws {
        let pantry = try Pantry()
        defer { pantry.world.remove() }
        let store = try pantry.store()
        // A thumbnail of an operation with no original (not committed) that cannot be removed:
        // a folder under its name, with something in it.
        let name = "\(UUID().uuidString).\(UUID().uuidString).thumbnail.jpeg"
        let planted = pantry.world.staging.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: planted.appendingPathComponent("inside"), withIntermediateDirectories: true)

        let report = try store.reconcile()

        #expect(report.leftForNextStart == 1 && report.rolledBack == 0, "\(report)")
        #expect(pantry.exists(planted))
        let left = try #require(pantry.leftLines.first, "\(pantry.lines.messages)")
        #expect(left.message.contains("Cannot remove the staged files"), "\(left.message)")
    }

    /// An `fsync` that fails cannot be made for real here, so the fault hook fails it (EIO) for
    /// `originals/`: the files moved into place stay there, nothing is undone, and the error
    /// line says that the move may not be durable and why.
    @Test func anFsyncThatFailsIsLoggedAndTheFilesStay() throws {
        let pantry = try Pantry()
        defer { pantry.world.remove() }
        let store = try pantry.store(faults: FaultInjection(syncFailsIn: "originals"))
        _ = try store.stageOut(pantry.spoon, in: try store.stateFolders())

        let report = try store.reconcile()

        #expect(report.rolledForward == 1 && report.leftForNextStart == 1, "\(report)")
        #expect(pantry.exists(pantry.original) && pantry.exists(pantry.thumbnail) && pantry.exists(pantry.preview))
        let left = try #require(pantry.leftLines.first, "\(pantry.lines.messages)")
        #expect(left.message.contains("Cannot make what was put into place durable"), "\(left.message)")
        #expect(left.message.contains("originals") && left.message.contains("Input/output error"), "the log says why: \(left.message)")
    }

    /// Rethumb's swap asks the catalog whether the utensil is still there before it renames
    /// the new thumbnail and preview over the old ones: a catalog that cannot answer is not
    /// "deleted meanwhile" (which would count the rethumb done), and the old files stay.
    @Test func rethumbTellsACatalogThatCannotAnswerFromADeletedUtensil() throws {
        let pantry = try Pantry()
        defer { pantry.world.remove() }
        let store = try pantry.store()
        let oldThumbnail = try Data(contentsOf: pantry.thumbnail)

        try pantry.breakCatalog()
        let busy = Result { () throws(RethumbError) in
            try store.replaceRenditions(of: pantry.spoon.id, thumbnail: [1, 2, 3], preview: [4, 5, 6])
        }
        try pantry.mendCatalog()
        guard case .failure(.catalogUnavailable(let id, _)) = busy else {
            Issue.record("a catalog that cannot answer must be catalogUnavailable, not \(busy)")
            return
        }
        #expect(id == pantry.spoon.id)
        #expect(try Data(contentsOf: pantry.thumbnail) == oldThumbnail, "the old thumbnail stays")
        #expect(pantry.world.stagedFiles().isEmpty, "the new files were not left in staging/")

        let gone = Result { () throws(RethumbError) in try store.replaceRenditions(of: UUID(), thumbnail: [1], preview: [2]) }
        guard case .failure(.gone) = gone else {
            Issue.record("a utensil that is not there is gone, not \(gone)")
            return
        }
    }

    /// An older version staged directly in `staging/`: the first start of this one moves those
    /// files into its own `staging/<host_name>/` and recovers them there; another host's
    /// folder is left alone.
    @Test func filesStagedByAnOlderVersionAreRecoveredOnceAndOtherHostsAreLeftAlone() throws {
        let pantry = try Pantry()
        defer { pantry.world.remove() }
        let store = try pantry.store()
        let files = try store.stageOut(pantry.spoon, in: try store.stateFolders())  // Not committed: goes back.
        for name in [files.original, files.thumbnail, files.preview].map({ String(decoding: $0, as: UTF8.self) }) {
            try FileManager.default.moveItem(
                at: pantry.world.staging.appendingPathComponent(name), to: pantry.world.stagingRoot.appendingPathComponent(name))
        }
        let otherHost = pantry.world.stagingRoot.appendingPathComponent("kitchen-2")
        try FileManager.default.createDirectory(at: otherHost, withIntermediateDirectories: true)
        let theirs = otherHost.appendingPathComponent("\(UUID().uuidString).\(UUID().uuidString).thumbnail.jpeg")
        try Data([1, 2, 3]).write(to: theirs)

        let report = try store.reconcile()

        #expect(report.olderStagedAdopted == 3 && report.rolledForward == 1 && report.leftForNextStart == 0, "\(report)")
        #expect(pantry.exists(pantry.original) && pantry.exists(pantry.thumbnail) && pantry.exists(pantry.preview))
        #expect(pantry.world.stagedFiles() == ["kitchen-2/\(theirs.lastPathComponent)"], "only the other host's file stays")
        #expect(Set(pantry.world.files(in: pantry.world.stagingRoot)) == ["kitchen-2", pantry.settings.hostName])
    }
}

/// One log line as a test saw it.
struct RecordedLine: Sendable {
    let level: Logger.Level
    let message: String
    let metadata: [String: String]
}

/// Log lines captured in a test, with their level and metadata.
final class RecordedLines: Sendable {
    private let lines = Mutex<[RecordedLine]>([])
    func append(_ line: RecordedLine) { lines.withLock { $0.append(line) } }
    var all: [RecordedLine] { lines.withLock { $0 } }
    /// The messages alone, in order.
    var messages: [String] { all.map(\.message) }
}

struct RecordingHandler: LogHandler {
    let lines: RecordedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append(RecordedLine(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
    }
}
