import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilTestSupport

/// Start-up recovery never takes an error for absence. A photo whose row was committed but
/// whose original still waits in `staging/` (utensild killed just after moving the thumbnail
/// into place) must not be rolled back because its staged original could not be read: with
/// the old `try?`, an unreadable staged original counted as "not committed", the staged files
/// were deleted and the drop, already recorded, removed from the inbox — the photo gone.
///
/// The read error is real: utensild runs as `nobody`, and the staged original is made
/// readable by root alone (EACCES), as a disk or file-system error would leave it unreadable.
@Suite("Recovery that never swallows an error", .serialized, .tags(.spawnsProcesses))
struct RecoveryErrorTests {
    static let nobody: uid_t = 65534
    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]

    @Test func anUnreadableStagedOriginalIsLeftForTheNextStartNotRolledBack() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/spoon", width: 200, height: 150, seed: 77)])[0]
        try world.drop("Spoon.jpg", image)
        try Self.giveToNobody(world.root)
        let arguments = UtensildProcess.arguments(for: world, extra: ["--oneshot"])

        let killed = try UtensildProcess.run(arguments, environment: ["UTENSIL_FAULT_KILL_AT": "thumbnail-moved"], launcher: Self.asNobody)
        #expect(killed.killedBySignal && killed.status == SIGKILL, "\(killed.errors)")
        let staged = world.stagedFiles().filter { !$0.hasSuffix(".jpeg") }
        let original = try #require(staged.first, "the committed original waits in staging/<host_name>/: \(staged)")
        #expect(original.contains("/"), "staged in the host's own folder: \(original)")
        let stagedPath = world.stagingRoot.appendingPathComponent(original).path
        #expect(chown(stagedPath, 0, 0) == 0 && chmod(stagedPath, 0o600) == 0)

        let unreadable = try UtensildProcess.run(arguments, launcher: Self.asNobody)
        #expect(unreadable.errors.contains("Cannot read the staged original"), "the error is logged: \(unreadable.errors)")
        #expect(unreadable.errors.contains("left as it is for the next start"), "\(unreadable.errors)")
        #expect(FileManager.default.fileExists(atPath: stagedPath), "the staged original must be left, not rolled back")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stagedPath)) == image)

        // Readable again (a person fixed it): the next start puts it into place.
        #expect(chown(stagedPath, Self.nobody, Self.nobody) == 0)
        let fixed = try UtensildProcess.run(arguments, launcher: Self.asNobody)
        #expect(fixed.status == 0, "\(fixed.errors)")
        let rows = try SQLiteCatalog(path: world.settings().catalogPath).all()
        #expect(rows.map(\.name) == ["Spoon"])
        try InvariantChecker(world: world).verify(inputs: [image], inbox: .mustBeEmpty)
    }

    /// A decoder crash is recorded in the catalog before its slot in `decoding.slots` is
    /// cleared: a catalog busy at that start (another process holds its write lock) stops that
    /// step with an error line and keeps the slot, so that the next start still counts the
    /// crash and the poison file is quarantined after its second one, as if nothing had been busy.
    @Test func aBusyCatalogKeepsADecoderCrashForTheNextStart() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/poison", width: 200, height: 150, seed: 78)])[0]
        try world.drop("Poison.jpg", image)
        let arguments = UtensildProcess.arguments(for: world, extra: ["--oneshot"])
        let crashing = ["UTENSIL_FAULT_DECODER_CRASH": "Poison"]

        let first = try UtensildProcess.run(arguments, environment: crashing)
        #expect(first.killedBySignal && first.status == SIGSEGV, "the first crash: \(first.errors)")

        let lock = try SQLiteLock(path: world.settings().catalogPath)
        let busy = try UtensildProcess.run(arguments)
        lock.release()
        #expect(busy.errors.contains("Cannot record a decoder crash in the catalog"), "the error is logged: \(busy.errors)")
        #expect(busy.errors.contains("left as it is for the next start"), "\(busy.errors)")
        #expect(!busy.errors.contains("crash 1 for it"))
        #expect(world.files(in: world.inbox) == ["Poison.jpg"], "the drop waits: \(busy.errors)")

        let second = try UtensildProcess.run(arguments, environment: crashing)
        #expect(second.errors.contains("crash 1 for it"), "the kept crash is counted now: \(second.errors)")
        #expect(second.killedBySignal && second.status == SIGSEGV, "the second crash: \(second.errors)")

        let third = try UtensildProcess.run(arguments, environment: crashing)
        #expect(third.errors.contains("crash 2 for it"), "\(third.errors)")
        let sidecar = try world.sidecar(for: "Poison.jpg")
        #expect(sidecar["reason"] as? String == "decoder-crash", "quarantined after two crashes, the busy start not counted")
    }

    /// Everything below `root` to `nobody`, so that utensild can run as that user.
    static func giveToNobody(_ root: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/chown")
        process.arguments = ["-R", "\(nobody):\(nobody)", root.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "chown -R nobody \(root.path)")
        chmod(root.path, 0o755)
    }
}
