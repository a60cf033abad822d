import Foundation
import Glibc
import Testing
import UtensilCore
import UtensilStorage
import UtensilStore
import UtensilTestSupport

/// Sidecars are read from `rejected/`, which group members can write: only a small regular
/// file directly in the held folder counts, whatever else was planted under that name.
@Suite("Sidecars read through the held folder")
struct SidecarFileTests {
    @Test func onlyASmallRegularFileDirectlyInTheFolderIsRead() throws {
        let world = try TestWorld()
        defer { world.remove() }
        try FileManager.default.createDirectory(at: world.rejected, withIntermediateDirectories: true)
        let document = RejectionSidecar(
            file: "Spoon.png", reason: .corruptImage, message: "Broken.", rejectedAt: Date(), bytes: 3,
            rejectedAs: "Spoon.png", inboxPath: "Spoon.png")
        let json = Data(document.encoded())
        try json.write(to: world.rejected.appendingPathComponent("Spoon.png.error.json"))
        // The same document outside, reached through a link planted in rejected/.
        let canary = try OutsideCanary(in: world.root, files: ["Ladle.png.error.json": json])
        #expect(symlink(canary.folder.path + "/Ladle.png.error.json", world.rejected.path + "/Ladle.png.error.json") == 0)
        #expect(symlink(canary.folder.path, world.rejected.path + "/out") == 0)
        #expect(mkfifo(world.rejected.path + "/Fork.png.error.json", 0o600) == 0)
        var huge = Data(json)
        huge.append(Data(repeating: 0x20, count: SidecarFile.maximumBytes))
        try huge.write(to: world.rejected.appendingPathComponent("Knife.png.error.json"))

        let folder = try HeldFolder.open(RawPath(world.rejected.path))
        #expect(SidecarFile.read(Array("Spoon.png.error.json".utf8), in: folder)?.reason == .corruptImage)
        #expect(SidecarFile.read(Array("Ladle.png.error.json".utf8), in: folder) == nil)
        #expect(SidecarFile.read(Array("out/Ladle.png.error.json".utf8), in: folder) == nil)
        #expect(SidecarFile.read(Array("Spoon.png.error.json".utf8) + [0], in: folder) == nil)
        #expect(SidecarFile.read(Array("Fork.png.error.json".utf8), in: folder) == nil)
        #expect(SidecarFile.read(Array("Knife.png.error.json".utf8), in: folder) == nil)
        #expect(SidecarFile.read(Array("Missing.png.error.json".utf8), in: folder) == nil)
        canary.verifyUntouched()
    }
}
