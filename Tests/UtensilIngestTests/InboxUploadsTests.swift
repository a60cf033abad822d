import Foundation
import Glibc
import Testing
import UtensilCore
@testable import UtensilIngest
import UtensilTestSupport

/// The web upload's confined writes into the inbox, without a daemon.
@Suite("Uploads into the inbox")
struct InboxUploadsTests {
    @Test func aHiddenFileSwappedBeforeItIsPlacedIsRefusedAndTheSwapIsNotPlaced() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let uploads = InboxUploads(inbox: RawPath(world.inbox.path))
        let file = try uploads.create(fileName: "Tongs.jpg", category: "Kitchen", uploader: "alice")
        try file.write(Array("photo".utf8))
        try file.finish()
        let hidden = world.inbox.appendingPathComponent("Kitchen/" + String(decoding: file.temporary, as: UTF8.self))
        #expect(unlink(hidden.path) == 0)
        #expect(FileManager.default.createFile(atPath: hidden.path, contents: Data("someone else's".utf8)))
        #expect(throws: UploadRefusal.replaced("Tongs.jpg")) { try file.place() }
        #expect(world.files(in: world.inbox.appendingPathComponent("Kitchen")) == [hidden.lastPathComponent])
    }

    @Test func aLinkedCategoryOrUtensildsOwnFolderIsRefusedAndAnUnswappedFileIsPlacedPrivate() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let outside = world.root.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        #expect(symlink(outside.path, world.inbox.appendingPathComponent("Evil").path) == 0)
        let uploads = InboxUploads(inbox: RawPath(world.inbox.path))
        #expect(throws: UploadRefusal.categoryNotAFolder("Evil")) {
            _ = try uploads.create(fileName: "Tongs.jpg", category: "Evil", uploader: "alice")
        }
        #expect(world.files(in: outside).isEmpty)

        // The rejected folder, placed inside the inbox, is no category either.
        var settings = world.settings()
        settings.rejected = RawPath(world.inbox.appendingPathComponent("rejected").path)
        #expect(mkdir(settings.rejected.description, 0o755) == 0)
        #expect(throws: UploadRefusal.categoryNotAFolder("rejected")) {
            _ = try InboxUploads(settings: settings).create(fileName: "Tongs.jpg", category: "rejected", uploader: "alice")
        }
        #expect(world.files(in: world.inbox.appendingPathComponent("rejected")).isEmpty)

        let file = try uploads.create(fileName: "Tongs.jpg", category: nil, uploader: "alice")
        try file.write(Array("photo".utf8))
        try file.finish()
        #expect(try file.place() == "Tongs.jpg")
        var status = stat()
        #expect(lstat(world.inbox.appendingPathComponent("Tongs.jpg").path, &status) == 0)
        #expect(status.st_mode & 0o022 == 0 && status.st_uid == geteuid())
    }
}
