import Foundation
import Glibc
import Testing
import UtensilCatalogModel
import UtensilCore
@testable import UtensilIngest
import UtensilTestSupport

/// A drop is removed only if it is still exactly what was read: a photo copied onto the same
/// name while the first copy is being ingested (`cp` rewrites the same inode) stays in the
/// inbox, and is then ingested as what it now is (here: rejected as a duplicate name).
@Suite("Overwrite in place")
struct OverwriteInPlaceTests {
    let world: TestWorld

    init() throws { world = try TestWorld() }

    @Test func aPhotoRewrittenInPlaceAfterItWasReadIsNotRemoved() throws {
        defer { world.remove() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 1),
            TestImages.jpeg(world.root.appendingPathComponent("b").path, width: 800, height: 600, seed: 2),
        ])
        let canary = try OutsideCanary(in: world.root, files: ["Spoon.jpg": images[1]])
        let url = try world.drop("Spoon.jpg", images[0])
        let engine = try world.engine()
        guard case .readyToCommit(let prepared) = engine.prepare(try world.found("Spoon.jpg")) else {
            Issue.record("the first copy was not prepared")
            return
        }
        // As `cp` does: the same inode, truncated and written again, while the first is ingested.
        let inodeBefore = try world.found("Spoon.jpg").status.identity
        try Self.rewriteInPlace(url, with: images[1])
        #expect(try world.found("Spoon.jpg").status.identity == inodeBefore)

        guard case .ingested(let first) = engine.commit([prepared])[0] else {
            Issue.record("the first copy was not committed")
            return
        }
        #expect(first.sha256 == sha256Hex(images[0]))
        #expect(try Data(contentsOf: url) == images[1], "the new bytes were deleted")

        // Looked at again, the new photo is ingested as what it is: a second Spoon.
        guard case .rejected(let rejection, _) = try world.ingest("Spoon.jpg", with: engine) else {
            Issue.record("the rewritten photo was not looked at again")
            return
        }
        #expect(rejection.reason == .duplicateName)
        canary.verifyUntouched()
        try InvariantChecker(world: world).verify(inputs: images, inbox: .mustBeEmpty)
    }

    @Test func aRewriteOfTheSameSizeInTheSameClockTickIsStillNoticed() throws {
        defer { world.remove() }
        let bytes = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 3)])[0]
        var other = bytes
        other[other.count - 3] ^= 0x01  // Same size, different bytes.
        let url = try world.drop("Ladle.jpg", bytes)
        let engine = try world.engine()
        let drop = try world.found("Ladle.jpg")
        guard case .readyToCommit(let prepared) = engine.prepare(drop) else {
            Issue.record("not prepared")
            return
        }
        try Self.rewriteInPlace(url, with: other)
        // Put the modification time back as it was: only the change time tells.
        let modified = timespec(
            tv_sec: Int(drop.status.modificationNanoseconds / 1_000_000_000),
            tv_nsec: Int(drop.status.modificationNanoseconds % 1_000_000_000))
        var times = [modified, modified]
        #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
        guard case .ingested = engine.commit([prepared])[0] else {
            Issue.record("not committed")
            return
        }
        #expect(try Data(contentsOf: url) == other, "the rewritten bytes were deleted")
    }

    static func rewriteInPlace(_ url: URL, with bytes: Data) throws {
        let fd = open(url.path, O_WRONLY | O_TRUNC)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw POSIXError(.EIO) }
    }
}
