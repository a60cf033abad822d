import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilStore
import UtensilTestSupport

/// `kill -9` in the middle of the store's operations other than an ingest — a delete for
/// good (`delete --now`, and the daemon's own purge of the trash) between its commit and its
/// files, and a rename just after its commit — then a restart: rows and files agree again
/// (the invariant check, `utensilctl check` included), and the operation is either done or
/// not done, never half.
@Suite("Crash safety of the store's operations", .serialized, .tags(.spawnsProcesses))
struct StoreCrashSafetyTests {
    /// Spoon and Whisk ingested by a daemon that kills itself at `step`.
    struct Kitchen {
        let world: TestWorld
        let images: [Data]
        let daemon: RunningDaemon
        let socket: String
        let spoon: UtensilRecord

        init(killAt step: FaultInjection.Step, extra: [String] = []) throws {
            let world = try TestWorld()
            self.world = world
            images = try TestImages.make((0..<2).map {
                TestImages.jpeg(world.root.path + "/c\($0)", width: 100, height: 80, seed: 400 + $0)
            })
            try world.drop("Spoon.jpg", images[0])
            try world.drop("Whisk.jpg", images[1])
            daemon = try RunningDaemon(world: world, extra: extra, environment: ["UTENSIL_FAULT_KILL_AT": step.rawValue])
            socket = world.root.appendingPathComponent("control.sock").path
            let rows = try daemon.waitForCatalog("Spoon and Whisk") { $0.count == 2 }
            spoon = try #require(rows.first { $0.name == "Spoon" })
        }

        func ctl(_ arguments: [String]) throws -> Utensilctl.Run {
            try Utensilctl.run(arguments, socket: socket)
        }

        /// Waits for the fault hook's SIGKILL, then starts a daemon without it.
        func restartAfterTheKill(at step: FaultInjection.Step) throws -> RunningDaemon {
            try daemon.waitUntil("utensild to kill itself at \(step.rawValue)") { !daemon.process.isRunning }
            daemon.process.waitUntilExit()
            #expect(daemon.process.terminationReason == .uncaughtSignal && daemon.process.terminationStatus == SIGKILL,
                    "utensild was not killed at \(step.rawValue): \(daemon.log)")
            return try RunningDaemon(world: world)
        }

        /// Killed before the delete's commit, Spoon is whole again; after it, Spoon's row and
        /// files are gone. Whisk is whole, and the invariant holds.
        func expectSpoonDeleted(_ deleted: Bool, _ restarted: RunningDaemon) throws {
            let rows = try SQLiteCatalog(path: world.settings().catalogPath).all()
            #expect(Set(rows.map(\.name)) == (deleted ? ["Whisk"] : ["Spoon", "Whisk"]))
            #expect(world.files(in: world.originals).contains { $0.hasPrefix(spoon.id.uuidString) } == !deleted)
            #expect(world.files(in: world.thumbnails).contains { $0.hasPrefix(spoon.id.uuidString) } == !deleted)
            try InvariantChecker(world: world).verify(
                inputs: deleted ? [images[1]] : images, inbox: .mustBeEmpty, controlSocket: socket)
            #expect(try restarted.terminate() == 0)
        }
    }

    static let deleteSteps: [FaultInjection.Step] = [.deleteFilesStaged, .deleteCommitted, .deleteFileRemoved]

    @Test(arguments: deleteSteps)
    func killedDuringADeleteForGood(step: FaultInjection.Step) throws {
        let kitchen = try Kitchen(killAt: step)
        defer { kitchen.world.remove() }
        let delete = try kitchen.ctl(["delete", "--now", kitchen.spoon.id.uuidString])
        #expect(delete.status != 0, "the daemon died before it answered")
        try kitchen.expectSpoonDeleted(step != .deleteFilesStaged, try kitchen.restartAfterTheKill(at: step))
    }

    @Test(arguments: deleteSteps)
    func killedDuringThePurgeOfTheTrash(step: FaultInjection.Step) throws {
        // 0.00003 days is about 2.6 seconds; the purger looks every second.
        let kitchen = try Kitchen(killAt: step, extra: ["--trash-days", "0.00003"])
        defer { kitchen.world.remove() }
        #expect(try kitchen.ctl(["delete", kitchen.spoon.id.uuidString]).status == 0, "to the trash")
        let restarted = try kitchen.restartAfterTheKill(at: step)
        if step == .deleteFilesStaged {
            // Still in the trash, whole: the restarted daemon (30 days) keeps it there.
            #expect(try SQLiteCatalog(path: kitchen.world.settings().catalogPath).all().first { $0.name == "Spoon" }?.trashedAt != nil)
        }
        try kitchen.expectSpoonDeleted(step != .deleteFilesStaged, restarted)
    }

    @Test func killedJustAfterARenameIsCommitted() throws {
        let kitchen = try Kitchen(killAt: .renameCommitted)
        defer { kitchen.world.remove() }
        let rename = try kitchen.ctl(["rename", kitchen.spoon.id.uuidString, "Soup spoon"])
        #expect(rename.status != 0, "the daemon died before it answered")
        let restarted = try kitchen.restartAfterTheKill(at: .renameCommitted)
        let rows = try SQLiteCatalog(path: kitchen.world.settings().catalogPath).all()
        #expect(Set(rows.map(\.name)) == ["Soup spoon", "Whisk"], "the committed rename survives")
        #expect(rows.first { $0.name == "Soup spoon" }?.id == kitchen.spoon.id)
        try InvariantChecker(world: kitchen.world).verify(
            inputs: kitchen.images, inbox: .mustBeEmpty, controlSocket: kitchen.socket)
        #expect(try restarted.terminate() == 0)
    }
}
