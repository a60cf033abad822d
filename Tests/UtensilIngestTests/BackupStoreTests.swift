import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilRestore
import UtensilStorage
import UtensilStore
import UtensilTestSupport

/// The store's backup on a real state folder and catalog: the snapshot's files and nothing
/// else, whatever happens to the utensils meanwhile; copies where links cannot be made.
@Suite("Backups of the store", .serialized)
struct BackupStoreTests {
    typealias Kitchen = UtensilStoreTests.Kitchen

    /// Each utensil's files in a backup: `originals/<id>.jpg`, `thumbnails/<id>.jpeg`, …
    private func paths(of record: UtensilRecord) -> [String] {
        BackupFolder.all.map { "\($0.name)/\($0.fileName(record.id, record.fileExtension))" }
    }

    private var filesPerUtensil: Int { BackupFolder.all.count }

    private func request(_ destination: URL, parent: FileIdentity? = nil) -> BackupRequest {
        BackupRequest(destination: destination.path, parentIdentity: parent, utensildVersion: "test")
    }

    private func listing(_ destination: URL) throws -> BackupManifest {
        try JSONDecoder().decode(BackupManifest.self, from: Data(contentsOf: destination.appendingPathComponent("backup.json")))
    }

    @Test func aUtensilDeletedAfterTheSnapshotMakesTheBackupStartAgain() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let destination = kitchen.world.root.appendingPathComponent("backup")
        var snapshots = 0
        let summary = try await kitchen.store.backup(request(destination), progress: { step in
            guard case .catalogWritten = step else { return }
            snapshots += 1
            // Between the first snapshot and its files: the files it names go away.
            if snapshots == 1 { _ = try? await kitchen.store.delete(id: kitchen.spoon.id, now: true) }
        }, isCancelled: { false })
        #expect(snapshots == 2)
        #expect(summary.manifest.counts.utensils == 1)
        #expect(summary.linked == filesPerUtensil && summary.copied == 0)
        let listed = try listing(destination)
        #expect(listed.files.map(\.path) == paths(of: kitchen.whisk).sorted())
        #expect(try CatalogFile.inspect(path: destination.appendingPathComponent("utensils.sqlite").path, rules: BackupRowRules()).utensils.map(\.id) == [kitchen.whisk.id])
    }

    @Test func onAnotherFileSystemTheFilesAreCopiedWithTheirChecksums() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let elsewhere = kitchen.world.root.appendingPathComponent("elsewhere")
        let mounts = try TmpfsMounts([(elsewhere, 16 << 20)])
        defer { mounts.release() }
        let destination = elsewhere.appendingPathComponent("backup")
        let summary = try await kitchen.store.backup(request(destination), progress: { _ in }, isCancelled: { false })
        #expect(summary.linked == 0 && summary.copied == 2 * filesPerUtensil)
        for file in try listing(destination).files {
            let bytes = try Data(contentsOf: destination.appendingPathComponent(file.path))
            #expect(sha256Hex(bytes) == file.sha256 && Int64(bytes.count) == file.bytes, "\(file.path)")
        }
        #expect(try Data(contentsOf: destination.appendingPathComponent("originals/\(kitchen.spoon.id.uuidString).jpg")) == kitchen.images[0])
    }

    @Test func aMissingThumbnailIsNotedAndAMissingOriginalRefusesTheBackup() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        try FileManager.default.removeItem(at: kitchen.thumbnail(kitchen.whisk))
        let first = kitchen.world.root.appendingPathComponent("first")
        let summary = try await kitchen.store.backup(request(first), progress: { _ in }, isCancelled: { false })
        #expect(summary.manifest.missing == ["thumbnails/\(kitchen.whisk.id.uuidString).jpeg"])
        #expect(summary.manifest.files.count == 2 * filesPerUtensil - 1)
        // It restores, the thumbnail left to be made again.
        let fresh = try TestWorld()
        defer { fresh.remove() }
        try FileManager.default.createDirectory(at: fresh.originals, withIntermediateDirectories: true)
        let restored = try BackupRestore(settings: fresh.settings(), logger: TestWorld.quietLogger)
            .restore(from: RawPath(first.path)) { _, _ in }
        #expect(restored.utensils == 2 && restored.files == 2 * filesPerUtensil - 1 && restored.missing == 1)
        #expect(fresh.files(in: fresh.thumbnails) == ["\(kitchen.spoon.id.uuidString).jpeg"])

        // A backup that does not mention a folder of such files at all (one made before the
        // folder existed) restores too, every file of that folder left to be made again.
        var older = try listing(first)
        older.files.removeAll { $0.path.hasPrefix("thumbnails/") }
        older.missing = []
        older.counts.files = older.files.count
        try JSONEncoder().encode(older).write(to: first.appendingPathComponent("backup.json"))
        let another = try TestWorld()
        defer { another.remove() }
        let again = try BackupRestore(settings: another.settings(), logger: TestWorld.quietLogger)
            .restore(from: RawPath(first.path)) { _, _ in }
        #expect(again.files == 2 * (filesPerUtensil - 1) && again.missing == 2)

        try FileManager.default.removeItem(at: kitchen.original(kitchen.spoon))
        let second = kitchen.world.root.appendingPathComponent("second")
        await #expect(throws: BackupError.originalMissing(
            id: kitchen.spoon.id.uuidString, path: kitchen.original(kitchen.spoon).path)
        ) {
            try await kitchen.store.backup(request(second), progress: { _ in }, isCancelled: { false })
        }
        #expect(!FileManager.default.fileExists(atPath: second.path))
    }

    @Test func aCancelledBackupAndAFolderTheCallerDoesNotShareLeaveNothing() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let destination = kitchen.world.root.appendingPathComponent("backup")
        await #expect(throws: BackupError.cancelled) {
            try await kitchen.store.backup(request(destination), progress: { _ in }, isCancelled: { true })
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let elsewhere = FileIdentity(device: 1, inode: 2)
        await #expect(throws: BackupError.parentNotShared(parent: kitchen.world.root.path, stateDir: kitchen.world.state.path)) {
            try await kitchen.store.backup(request(destination, parent: elsewhere), progress: { _ in }, isCancelled: { false })
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func aFolderTheDaemonMayNotWriteIsRefusedSayingWhereItMay() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let readOnly = kitchen.world.root.appendingPathComponent("read-only")
        let mounts = try TmpfsMounts([(readOnly, 1 << 20)], readOnly: true)
        defer { mounts.release() }
        let refusal = BackupError.readOnlyForDaemon(parent: readOnly.path, stateDir: kitchen.world.state.path)
        await #expect(throws: refusal) {
            try await kitchen.store.backup(request(readOnly.appendingPathComponent("backup")), progress: { _ in }, isCancelled: { false })
        }
        #expect(refusal.description.contains("ReadWritePaths="))
        #expect(refusal.description.contains("back up under \(kitchen.world.state.path)"))
    }
}
