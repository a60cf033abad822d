import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilStore
import UtensilTestSupport

/// `kill -9` at every step of a photo replacement (`duplicate_names = "replace"`), then a
/// restart: the utensil has the new photo completely (the drop is ingested exactly once), keeps
/// its id and `createdAt`, and no file lacks its row or is left over.
@Suite("Crash safety of a replacement", .serialized, .tags(.spawnsProcesses))
struct ReplaceCrashSafetyTests {
    static let steps: [FaultInjection.Step] = [
        .opened, .originalWritten, .thumbnailWritten, .filesDurable, .committed,
        .thumbnailMoved, .originalMoved, .dropRemoved,
    ]

    @Test(arguments: steps, ["png", "jpg"])
    func killedAtEveryStepOfAReplacementThenRestarted(step: FaultInjection.Step, newExtension: String) throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make([
            TestImages.jpeg(root + "/old", width: 800, height: 600, seed: 21),
            newExtension == "png"
                ? TestImages.png(root + "/new", seed: 22) : TestImages.jpeg(root + "/new", width: 600, height: 800, seed: 22),
        ])
        let arguments = UtensildProcess.arguments(
            for: world, extra: ["--oneshot", "--workers", "1", "--duplicate-names", "replace"])
        try world.drop("Ladle.jpg", images[0])
        let first = try UtensildProcess.run(arguments)
        #expect(first.status == 0, "\(first.errors)")
        let before = try #require(try SQLiteCatalog(path: world.settings().catalogPath).all().first)

        try world.drop("Ladle.\(newExtension)", images[1])
        let killed = try UtensildProcess.run(arguments, environment: ["UTENSIL_FAULT_KILL_AT": step.rawValue])
        #expect(killed.killedBySignal && killed.status == SIGKILL, "utensild was not killed at \(step): \(killed.errors)")

        let restarted = try UtensildProcess.run(arguments)
        #expect(restarted.status == 0, "\(restarted.output)\n\(restarted.errors)")
        let census = try InvariantChecker(world: world).verify(inputs: [images[1]], inbox: .mustBeEmpty)
        #expect(census == .init(utensils: 1, rejections: 0, stillInInbox: 0))
        let after = try #require(try SQLiteCatalog(path: world.settings().catalogPath).all().first)
        #expect(after.id == before.id && after.name == "Ladle" && after.createdAt == before.createdAt)
        #expect(after.sha256 == sha256Hex(images[1]) && after.fileExtension == newExtension && after.updatedAt != nil)
    }

    /// Reconciliation on its own: a committed replacement's staged files roll forward (and the
    /// old original of another extension goes), an uncommitted one's roll back.
    @Test func reconciliationFinishesCommittedReplacementsAndUndoesTheOthers() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make([
            TestImages.jpeg(root + "/a", width: 400, height: 300, seed: 31),
            TestImages.jpeg(root + "/b", width: 300, height: 400, seed: 32),
            TestImages.png(root + "/c", seed: 33),
        ])
        let engine = try world.engine(world.settings())
        try world.drop("Whisk.jpg", images[0])
        try world.drop("Tongs.jpg", images[1])
        _ = try world.ingest("Whisk.jpg", with: engine)
        _ = try world.ingest("Tongs.jpg", with: engine)
        let catalog = try SQLiteCatalog(path: world.settings().catalogPath)
        let rows = try catalog.all()
        let whisk = try #require(rows.first { $0.name == "Whisk" })
        let tongs = try #require(rows.first { $0.name == "Tongs" })
        let thumbnail = try Data(contentsOf: world.thumbnails.appendingPathComponent("\(whisk.id.uuidString).jpeg"))

        // Whisk: committed as the PNG, interrupted before its files moved. Tongs: not committed.
        var committed = whisk
        committed.fileExtension = "png"
        committed.sha256 = sha256Hex(images[2])
        committed.bytes = images[2].count
        _ = try catalog.replacePhoto(with: committed)
        let staging = world.staging
        for id in [whisk.id, tongs.id] {
            let operation = UUID().uuidString
            try images[2].write(to: staging.appendingPathComponent("\(id.uuidString).\(operation).original.png"))
            try thumbnail.write(to: staging.appendingPathComponent("\(id.uuidString).\(operation).thumbnail.jpeg"))
        }

        let report = try UtensilStore(settings: world.settings(), catalog: catalog, logger: TestWorld.quietLogger).reconcile()
        #expect(report.rolledForward == 1 && report.rolledBack == 1)
        #expect(!report.lookedThroughEverything)
        #expect(world.files(in: staging).isEmpty)
        #expect(world.files(in: world.originals) == ["\(tongs.id.uuidString).jpg", "\(whisk.id.uuidString).png"].sorted())
        try InvariantChecker(world: world).verify(inputs: [images[1], images[2]])
    }
}
