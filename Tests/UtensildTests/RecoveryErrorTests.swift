import Foundation
import Glibc
import Testing
import UtensilCatalog
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
@Suite("Recovery that never swallows an error", .serialized)
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
        let staging = world.state.appendingPathComponent("staging")
        let staged = try FileManager.default.contentsOfDirectory(atPath: staging.path).filter { !$0.hasSuffix(".jpeg") }
        let original = try #require(staged.first, "the committed original waits in staging/: \(staged)")
        let stagedPath = staging.appendingPathComponent(original).path
        #expect(chown(stagedPath, 0, 0) == 0 && chmod(stagedPath, 0o600) == 0)

        let unreadable = try UtensildProcess.run(arguments, launcher: Self.asNobody)
        #expect(unreadable.errors.contains("Cannot read the staged original"), "the error is logged: \(unreadable.errors)")
        #expect(FileManager.default.fileExists(atPath: stagedPath), "the staged original must be left, not rolled back")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stagedPath)) == image)

        // Readable again (a person fixed it): the next start puts it into place.
        #expect(chown(stagedPath, Self.nobody, Self.nobody) == 0)
        let fixed = try UtensildProcess.run(arguments, launcher: Self.asNobody)
        #expect(fixed.status == 0, "\(fixed.errors)")
        let rows = try Catalog(path: world.settings().catalogPath).all()
        #expect(rows.map(\.name) == ["Spoon"])
        try InvariantChecker(world: world).verify(inputs: [image], inbox: .mustBeEmpty)
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
