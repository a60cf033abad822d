import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Web uploads go through the daemon's confined inbox operations: a category folder that is
/// a link, or a name the inbox ignores, is refused and nothing is written outside; an upload
/// waiting in the inbox is writable by utensild alone.
@Suite("upload confinement against utensild", .serialized)
struct UploadConfinementTests {
    typealias Web = WebAccessTests

    /// Runs `command` with `sh -c` as the user `nobody` with `group` as its only group.
    static func asGroupMember(gid: gid_t, _ command: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--groups=\(gid)", "--", "/bin/sh", "-c", command]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func categoryFoldersThatAreLinksOrIgnoredNamesAreRefusedAndNothingIsWrittenOutside() throws {
        // A settle time long enough that the planted links are still in the inbox when uploading.
        let (world, daemon, web, _) = try Web.world(extra: ["--settle-seconds", "5"])
        defer { world.remove() }
        let (cookie, _) = try Web.signIn(web)
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/p", width: 120, height: 90, seed: 41)])[0]
        let canary = try OutsideCanary(in: world.root, files: ["Ladle.jpg": image, "notes.txt": Data("private".utf8)])
        for link in ["Evil", "Evil~"] {
            #expect(symlink(canary.folder.path, world.inbox.appendingPathComponent(link).path) == 0)
        }
        for category in ["Evil", "Evil~", "..", "a/b", ".hidden", "@eaDir", "x.part"] {
            let reply = try Web.upload(web, cookie: cookie, Web.multipart([("Spoon.jpg", image)], fields: [("category", category)]))
            #expect(reply.status == 200, "\(category): \(reply.status)")
            let files = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: [[String: String]]])["files"]
            #expect(files?.count == 1 && files?.first?["status"] == "refused", "\(category): \(reply.text)")
            let message = files?.first?["message"] ?? ""
            #expect(message.hasSuffix(".") && message.contains("categor"), "\(category): one sentence, got \(message)")
        }
        let linked = try Web.upload(web, cookie: cookie, Web.multipart([("Spoon.jpg", image)], fields: [("category", "Evil")]))
        #expect(linked.text.contains("link"), "the link is named as the reason: \(linked.text)")
        // Hidden and ignored file names would linger in the inbox: refused too.
        for name in [".Spoon.jpg", "Spoon.jpg.part", "Spoon.jpg~"] {
            let reply = try Web.upload(web, cookie: cookie, Web.multipart([(name, image)]))
            #expect(reply.text.contains(#""status":"refused""#), "\(name): \(reply.text)")
        }
        canary.verifyUntouched()
        #expect(try FileManager.default.contentsOfDirectory(atPath: canary.folder.path).sorted() == ["Ladle.jpg", "notes.txt"])
        #expect(try daemon.terminate() == 0)
        #expect(world.files(in: world.inbox).allSatisfy { !$0.hasPrefix(".upload-") })
    }

    @Test func anUploadWaitingInTheInboxIsWritableByUtensildAloneAndAddedByItsUploader() throws {
        // As the unit runs it (UMask=0007, under which uploads used to be group-writable), and
        // with a settle time that leaves the upload in the inbox long enough to try.
        let umask = ["/bin/sh", "-c", "umask 0007 && exec \"$@\"", "sh"]
        let (world, daemon, web, _) = try Web.world(extra: ["--settle-seconds", "5"], launcher: umask)
        defer { world.remove() }
        let (cookie, _) = try Web.signIn(web)
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/p", width: 120, height: 90, seed: 42)])[0]
        let reply = try Web.upload(web, cookie: cookie, Web.multipart([("Tongs.jpg", image)], fields: [("category", "Kitchen")]))
        #expect(reply.text.contains(#""inboxFile":"Kitchen/Tongs.jpg""#), "\(reply.text)")

        let path = world.inbox.appendingPathComponent("Kitchen/Tongs.jpg").path
        var status = stat()
        #expect(lstat(path, &status) == 0, "the upload waits in the inbox")
        #expect(status.st_uid == geteuid(), "owned by utensild")
        #expect(status.st_mode & 0o022 == 0, "writable by utensild alone: mode \(String(status.st_mode & 0o7777, radix: 8))")
        // A member of the file's group reaches and reads it (so the refusal below is not
        // for want of a path), but cannot rewrite it.
        for folder in [world.root, world.inbox] { chmod(folder.path, 0o755) }
        #expect(try Self.asGroupMember(gid: status.st_gid, "cat '\(path)' > /dev/null") == 0)
        #expect(try Self.asGroupMember(gid: status.st_gid, "printf x >> '\(path)'") != 0)

        let rows = try daemon.waitForCatalog("the upload") { $0.contains { $0.name == "Tongs" } }
        let tongs = try #require(rows.first { $0.name == "Tongs" })
        #expect(tongs.addedBy == "alice" && tongs.category == "Kitchen")
        #expect(tongs.sha256 == sha256Hex(image), "the photo is the one uploaded")
        #expect(try daemon.terminate() == 0)
    }
}
