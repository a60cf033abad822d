import Foundation
import Logging
import Testing
import UtensilCatalogModel
import UtensilIngest
@testable import UtensilStore
import UtensilTestSupport

/// The store's operations on a real state folder and a real catalog: each keeps rows and
/// files together, and what it cannot do is reported.
@Suite("The store's operations")
struct UtensilStoreTests {
    /// A world with two ingested utensils, Spoon and Whisk, and the store that owns them.
    struct Kitchen {
        let world: TestWorld
        let store: UtensilStore
        let images: [Data]
        let spoon: UtensilRecord
        let whisk: UtensilRecord

        init(trashDays: Double = 30, logger: Logger = TestWorld.quietLogger) async throws {
            let world = try TestWorld()
            self.world = world
            var settings = world.settings()
            settings.trashDays = trashDays
            images = try TestImages.make((0..<2).map {
                TestImages.jpeg(world.root.path + "/k\($0)", width: 120, height: 90, seed: 300 + $0)
            })
            let engine = try world.engine(settings, logger: logger)
            try world.drop("Spoon.jpg", images[0])
            try world.drop("Whisk.jpg", images[1])
            _ = try world.ingest("Spoon.jpg", with: engine)
            _ = try world.ingest("Whisk.jpg", with: engine)
            store = engine.store
            spoon = try await store.find("Spoon")
            whisk = try await store.find("Whisk")
        }

        func original(_ record: UtensilRecord) -> URL {
            world.originals.appendingPathComponent("\(record.id.uuidString).\(record.fileExtension)")
        }

        func thumbnail(_ record: UtensilRecord) -> URL {
            world.thumbnails.appendingPathComponent("\(record.id.uuidString).jpeg")
        }

        func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }
    }

    @Test func trashKeepsTheFilesRestoreBringsItBackDeleteNowRemovesRowAndFiles() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let store = kitchen.store

        guard case .trashed(let trashed) = try await store.delete(id: kitchen.spoon.id, now: false) else {
            Issue.record("delete without now did not trash")
            return
        }
        #expect(trashed.trashedAt != nil)
        #expect(kitchen.exists(kitchen.original(trashed)) && kitchen.exists(kitchen.thumbnail(trashed)))
        #expect(try await store.trashed().map(\.id) == [kitchen.spoon.id])
        #expect(try await store.count() == 1)
        await #expect(throws: StoreError.self, "already in the trash, without --now") {
            try await store.delete(id: kitchen.spoon.id, now: false)
        }

        let restored = try await store.restore(id: kitchen.spoon.id, as: "Old spoon")
        #expect(restored.name == "Old spoon" && restored.trashedAt == nil)
        do throws(StoreError) {
            _ = try await store.restore(id: kitchen.spoon.id, as: nil)
            Issue.record("a utensil not in the trash was restored")
        } catch {
            #expect(error == .notFound("Old spoon is not in the trash; `utensilctl trash` lists what is."))
        }

        guard case .deletedForGood(let deleted) = try await store.delete(id: kitchen.whisk.id, now: true) else {
            Issue.record("delete --now did not delete for good")
            return
        }
        #expect(deleted.id == kitchen.whisk.id)
        #expect(!kitchen.exists(kitchen.original(deleted)) && !kitchen.exists(kitchen.thumbnail(deleted)))
        #expect(try await store.catalog.utensil(id: kitchen.whisk.id) == nil)
        try InvariantChecker(world: kitchen.world).verify(inputs: [kitchen.images[0]])
    }

    @Test func restoringUnderATakenNameSuggestsAnotherName() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        _ = try await kitchen.store.delete(id: kitchen.spoon.id, now: false)
        _ = try await kitchen.store.rename(id: kitchen.whisk.id, to: "spoon")
        do throws(StoreError) {
            _ = try await kitchen.store.restore(id: kitchen.spoon.id, as: nil)
            Issue.record("a taken name was restored")
        } catch {
            guard case .duplicateName(let message) = error else { throw error }
            #expect(message.contains("--as NEW-NAME") && message.contains(kitchen.spoon.id.uuidString))
        }
    }

    /// A file that cannot be removed (here the thumbnail's name is taken by a folder, so
    /// `unlinkat` fails for real) is logged and reported; the row is gone all the same, and
    /// the next start removes what is left.
    @Test func aFileADeleteCannotRemoveIsReportedNotSwallowed() async throws {
        let lines = RecordedLines()
        let kitchen = try await Kitchen(logger: Logger(label: "test") { _ in RecordingHandler(lines: lines) })
        defer { kitchen.world.remove() }
        let thumbnail = kitchen.thumbnail(kitchen.spoon)
        try FileManager.default.removeItem(at: thumbnail)
        try FileManager.default.createDirectory(at: thumbnail.appendingPathComponent("in the way"), withIntermediateDirectories: true)

        do throws(StoreError) {
            _ = try await kitchen.store.delete(id: kitchen.spoon.id, now: true)
            Issue.record("the delete said nothing of the file it could not remove")
        } catch {
            guard case .filesNotRemoved(let message) = error else { throw error }
            #expect(message.contains("Spoon was deleted for good") && message.contains(kitchen.spoon.id.uuidString), "\(message)")
        }
        #expect(try await kitchen.store.catalog.utensil(id: kitchen.spoon.id) == nil)
        #expect(!kitchen.exists(kitchen.original(kitchen.spoon)))
        #expect(lines.messages.contains { $0.contains("Deleted utensil Spoon but cannot remove") }, "\(lines.messages)")
    }

    @Test func renameAndSetCategoryChangeTheRowOnlyAndRefuseBadNames() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let store = kitchen.store
        let filesBefore = kitchen.world.files(in: kitchen.world.originals) + kitchen.world.files(in: kitchen.world.thumbnails)

        let (previous, renamed) = try await store.rename(id: kitchen.spoon.id, to: "  Soup spoon ")
        #expect(previous.name == "Spoon" && renamed.name == "Soup spoon" && renamed.updatedAt != nil)
        await #expect(throws: StoreError.self) { try await store.rename(id: kitchen.spoon.id, to: "whisk") }
        do throws(StoreError) {
            _ = try await store.rename(id: kitchen.spoon.id, to: "Bell\u{7}")
            Issue.record("a name with a control character was taken")
        } catch {
            guard case .invalidName = error else { throw error }
        }
        do throws(StoreError) {
            _ = try await store.rename(id: UUID(), to: "Bell\u{7}")
            Issue.record("an unknown id was renamed")
        } catch {
            #expect(error == .notFound(StoreError.noSuchUtensil), "an unknown id is told before a bad name")
        }

        #expect(try await store.setCategory(id: kitchen.spoon.id, to: "Cutlery").category == "Cutlery")
        #expect(try await store.categories() == [CatalogCategory(name: "Cutlery", count: 1)])
        #expect(try await store.setCategory(id: kitchen.spoon.id, to: nil).category == nil)
        await #expect(throws: StoreError.self) { try await store.setCategory(id: kitchen.spoon.id, to: "") }

        let filesAfter = kitchen.world.files(in: kitchen.world.originals) + kitchen.world.files(in: kitchen.world.thumbnails)
        #expect(filesAfter == filesBefore, "files are named by id: nothing on disk changes")
        try InvariantChecker(world: kitchen.world).verify(inputs: kitchen.images)
    }

    @Test func renameAndSetCategoryRefuseWhatNoDroppedFileCouldCarry() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let store = kitchen.store
        /// The sentence of an `invalidName` refusal; anything else fails the test.
        func refusal(_ what: String, _ body: () async throws(StoreError) -> Void) async throws -> String {
            do throws(StoreError) {
                try await body()
            } catch {
                guard case .invalidName(let message) = error else { throw error }
                #expect(message.hasSuffix(".") && !message.contains("\n"), "one sentence: \(message)")
                return message
            }
            Issue.record("\(what) was taken")
            return ""
        }
        let longName = String(repeating: "🥄", count: 70)  // 70 characters, 280 bytes
        for name in ["../../etc", "a/b", "..", ".hidden", "~$lock", longName] {
            _ = try await refusal("the name \(name)") { () async throws(StoreError) in _ = try await store.rename(id: kitchen.spoon.id, to: name) }
            _ = try await refusal("restore --as \(name)") { () async throws(StoreError) in _ = try await store.restore(id: kitchen.whisk.id, as: name) }
        }
        for category in ["..", "a/b", "Evil~", ".hidden", "x.part", "@eaDir", "Thumbs.db", longName] {
            let message = try await refusal("the category \(category)") { () async throws(StoreError) in _ = try await store.setCategory(id: kitchen.spoon.id, to: category) }
            #expect(message.contains("categor"), "\(category): \(message)")
        }
        #expect(try await store.find("Spoon").category == nil, "nothing refused was written")
        // What a file can carry is still taken: a name ending in ~ (Spoon~.jpg is a photo).
        #expect(try await store.rename(id: kitchen.spoon.id, to: "Spoon~").renamed.name == "Spoon~")
        #expect(try await store.setCategory(id: kitchen.spoon.id, to: "Knives & forks").category == "Knives & forks")
    }

    /// The local folder answers `/readyz`'s and `status`'s question while its `originals/`
    /// can be written.
    @Test func theLocalStorageAnswersWhileItsOriginalsCanBeWritten() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        guard case .success = await kitchen.store.askStorage() else {
            Issue.record("the local folder did not answer")
            return
        }
        try FileManager.default.moveItem(at: kitchen.world.originals, to: kitchen.world.root.appendingPathComponent("moved"))
        guard case .failure(.fileSystem(let message)) = await kitchen.store.askStorage() else {
            Issue.record("a state folder without originals/ answered")
            return
        }
        #expect(message.contains("\(kitchen.world.originals.path) cannot be written"), "\(message)")
    }

    @Test func thePurgeDeletesForGoodWhatHasBeenInTheTrashLongEnough() async throws {
        let kitchen = try await Kitchen(trashDays: 1)
        defer { kitchen.world.remove() }
        _ = try await kitchen.store.delete(id: kitchen.spoon.id, now: false)
        #expect(try await kitchen.store.purgeExpired().purged.isEmpty, "not yet a day")
        let purge = try await kitchen.store.purgeExpired(now: Date().addingTimeInterval(86_400 + 1))
        #expect(purge.purged.map(\.id) == [kitchen.spoon.id] && purge.filesNotRemoved.isEmpty)
        #expect(!kitchen.exists(kitchen.original(kitchen.spoon)) && !kitchen.exists(kitchen.thumbnail(kitchen.spoon)))
        try InvariantChecker(world: kitchen.world).verify(inputs: [kitchen.images[1]])
    }

    /// With several hosts sharing the catalog, one purges at a time: the host holding the
    /// purge's lease (`CatalogDuties`); another takes over once that lease has run out.
    @Test func anotherHostHoldingThePurgeLeaseKeepsThisHostFromPurging() async throws {
        let kitchen = try await Kitchen(trashDays: 1)
        defer { kitchen.world.remove() }
        _ = try await kitchen.store.delete(id: kitchen.spoon.id, now: false)
        let catalog = kitchen.store.catalog
        let later = Date().addingTimeInterval(86_400 + 1)
        func claim(for host: String, until: Date) throws -> Bool {
            try CatalogAwait.run { () async throws(CatalogError) in
                try await catalog.claimDuty(UtensilStore.trashPurgeDuty, for: host, now: Date(), until: until)
            }
        }
        #expect(try claim(for: "other-host", until: Date().addingTimeInterval(3600)))
        let skipped = try await kitchen.store.purgeExpired(now: later)
        #expect(skipped.anotherHostPurges && skipped.purged.isEmpty)
        #expect(kitchen.exists(kitchen.original(kitchen.spoon)))
        // The other host's lease runs out (it renews it to a moment already past, as if it died then).
        #expect(try claim(for: "other-host", until: Date().addingTimeInterval(-1)))
        let purge = try await kitchen.store.purgeExpired(now: later)
        #expect(!purge.anotherHostPurges && purge.purged.map(\.id) == [kitchen.spoon.id])
        #expect(try !claim(for: "other-host", until: Date().addingTimeInterval(60)), "this host holds the purge now")
    }

    /// The leases of drops taken from a shared inbox are left to run out; a purge forgets those
    /// that ran out over an hour ago, and no other.
    @Test func aPurgeForgetsLeasesThatRanOutLongAgo() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let catalog = kitchen.store.catalog
        func claim(_ duty: String, until: Date) throws -> Bool {
            try CatalogAwait.run { () async throws(CatalogError) in
                try await catalog.claimDuty(duty, for: "other-host", now: until.addingTimeInterval(-120), until: until)
            }
        }
        #expect(try claim("drop:old", until: Date().addingTimeInterval(-7200)))
        #expect(try claim("drop:recent", until: Date().addingTimeInterval(-60)))
        _ = try await kitchen.store.purgeExpired()
        let left = try CatalogAwait.run { () async throws(CatalogError) in
            try await catalog.forgetDuties(expiredBefore: Date())
        }
        #expect(left == 1, "only drop:recent (the purge's own lease runs on) is left to forget")
    }

    /// `check` looks through everything, start-up reconciliation only through `staging/` —
    /// except for a state folder without `staging/` (one of an earlier version), where it
    /// looks through everything once, on the same scan as `check`: what `check` reports as
    /// files without rows and rows without files is what that reconciliation removes and names.
    @Test func checkReportsWhatTheLookThroughEverythingMends() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let store = kitchen.store
        #expect(try await store.check() == ConsistencyReport(integrity: ["ok"], rowsWithoutFiles: [], filesWithoutRows: []))

        let orphan = kitchen.world.originals.appendingPathComponent("\(UUID().uuidString).jpg")
        let temporary = kitchen.world.thumbnails.appendingPathComponent(".tmp-\(UUID().uuidString)")
        try Data("x".utf8).write(to: orphan)
        try Data("y".utf8).write(to: temporary)
        try FileManager.default.removeItem(at: kitchen.thumbnail(kitchen.whisk))

        let fresh = try await store.check()
        #expect(fresh.filesWithoutRows.isEmpty, "files younger than a minute may be an operation in flight")
        #expect(fresh.rowsWithoutFiles == [kitchen.whisk.id.uuidString])
        let later = try await store.check(now: Date().addingTimeInterval(UtensilStore.checkGraceSeconds + 1))
        #expect(later.filesWithoutRows == [orphan.path, temporary.path].sorted())

        let usual = try store.reconcile()
        #expect(!usual.lookedThroughEverything && usual.orphansRemoved == 0, "a start looks only at staging/")
        #expect(kitchen.exists(orphan))

        try FileManager.default.removeItem(at: kitchen.world.state.appendingPathComponent("staging"))
        let report = try store.reconcile()
        #expect(report.lookedThroughEverything)
        #expect(report.orphansRemoved == 1 && report.temporariesRemoved == 1)
        #expect(report.rowsMissingFiles == [kitchen.whisk.id])
        #expect(kitchen.exists(kitchen.world.state.appendingPathComponent("staging")))
        let after = try await store.check(now: Date().addingTimeInterval(UtensilStore.checkGraceSeconds + 1))
        #expect(after.filesWithoutRows.isEmpty && after.rowsWithoutFiles == [kitchen.whisk.id.uuidString])
    }

    /// A temporary in the state folder itself or in `rejected/` is removed at start; when other
    /// hosts share the folders, only once it is older than another host's write in flight could be.
    @Test(arguments: [false, true])
    func startUpRemovesTemporariesInTheStateFolderNotAnotherHostsInFlight(shared: Bool) async throws {
        let world = try TestWorld()
        defer { world.remove() }
        var settings = world.settings()
        settings.sharesStateFolder = shared
        settings.hostName = "kitchen-a"
        let store = try world.engine(settings).store
        // In the state folder, and in `rejected/` (shared too when the hosts watch one inbox).
        try FileManager.default.createDirectory(at: world.rejected, withIntermediateDirectories: true)
        let young = [world.state, world.rejected].map { $0.appendingPathComponent(".tmp-\(UUID().uuidString)") }
        let old = [world.state, world.rejected].map { $0.appendingPathComponent(".tmp-\(UUID().uuidString)") }
        for file in young + old { try Data("a".utf8).write(to: file) }
        let anHourAgo = Date().addingTimeInterval(-3600)
        for file in old { try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: file.path) }

        let report = try store.reconcile()
        #expect(old.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        #expect(young.allSatisfy { FileManager.default.fileExists(atPath: $0.path) == shared })
        #expect(report.temporariesRemoved == (shared ? 2 : 4))
        if shared {
            _ = try store.reconcile(now: Date().addingTimeInterval(UtensilStore.sharedTemporaryGraceSeconds + 1))
            #expect(young.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) }, "a later start removes them")
        }
    }

    /// What a crash leaves in `staging/`: a delete not yet committed goes back into place, a
    /// committed one's files go; `check` lists staged files meanwhile.
    @Test func stagedFilesOfDeletesAreFinishedOrUndoneAtStart() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let store = kitchen.store
        let folders = try store.stateFolders()
        _ = try store.stageOut(kitchen.spoon, in: folders)  // Then "killed" before the commit.
        _ = try store.stageOut(kitchen.whisk, in: folders)
        _ = try await store.catalog.delete(id: kitchen.whisk.id)  // Then "killed" after the commit.
        let staging = kitchen.world.staging
        #expect(kitchen.world.files(in: staging).count == 8, "original, thumbnail, preview and grid square of each")
        #expect(!kitchen.exists(kitchen.original(kitchen.spoon)))
        let check = try await store.check(now: Date().addingTimeInterval(UtensilStore.checkGraceSeconds + 1))
        #expect(check.stagedLeftovers.count == kitchen.world.files(in: staging).count, "\(check)")
        #expect(check.filesWithoutRows.isEmpty, "staged files are reported as such")
        #expect(check.rowsWithoutFiles == [kitchen.spoon.id.uuidString])

        let report = try store.reconcile()
        #expect(report.rolledForward == 1 && report.rolledBack == 1 && !report.lookedThroughEverything)
        #expect(kitchen.world.files(in: staging).isEmpty)
        #expect(kitchen.exists(kitchen.original(kitchen.spoon)) && kitchen.exists(kitchen.thumbnail(kitchen.spoon)))
        try InvariantChecker(world: kitchen.world).verify(inputs: [kitchen.images[0]])
    }
}
