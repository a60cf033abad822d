import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Web uploads go through the daemon's confined inbox operations: a category folder that is
/// a link, or a name the inbox ignores, is refused and nothing is written outside; an upload
/// waiting in the inbox is writable by utensild alone; a killed upload's hidden file is swept
/// at the next start, and `check` reports one that stays.
@Suite("upload confinement against utensild", .serialized, .tags(.spawnsProcesses))
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

    @Test func aKilledUploadIsSweptAtTheNextStartAndCheckReportsOneThatStays() throws {
        let (world, daemon, web, _) = try Web.world()
        defer { world.remove() }
        let (cookie, _) = try Web.signIn(web)
        // An upload cut off by kill -9: its hidden file stays in the inbox.
        let fd = try web.connect()
        defer { close(fd) }
        let head = "POST /api/v1/uploads HTTP/1.1\r\nHost: localhost\r\nCookie: \(cookie)\r\n"
            + "Content-Type: multipart/form-data; boundary=XyZzY\r\nContent-Length: 100000\r\n\r\n"
            + "--XyZzY\r\nContent-Disposition: form-data; name=\"files\"; filename=\"Cut.jpg\"\r\n\r\n"
        #expect(web.send(fd, Data(head.utf8) + Data(repeating: 0xFF, count: 5000)))
        let leftovers = { world.files(in: world.inbox).filter { $0.hasPrefix(".upload-") && $0.hasSuffix(".part") } }
        try daemon.waitUntil("the upload's hidden file") { leftovers().count == 1 }
        daemon.kill()
        let killed = try #require(leftovers().first)

        // What is not utensild's own regular file is left alone: another user's file of that
        // name, a link of that name to a file outside, a folder link to such a file outside.
        let canary = try OutsideCanary(in: world.root, files: [".upload-\(UUID().uuidString).part": Data("outside".utf8)])
        let outsideFile = try #require(try FileManager.default.contentsOfDirectory(atPath: canary.folder.path).first)
        let foreign = ".upload-\(UUID().uuidString).part"
        try world.drop(foreign, Data("someone else's".utf8))
        #expect(chown(world.inbox.appendingPathComponent(foreign).path, 65534, 65534) == 0)
        let link = ".upload-\(UUID().uuidString).part"
        #expect(symlink(canary.folder.appendingPathComponent(outsideFile).path, world.inbox.appendingPathComponent(link).path) == 0)
        #expect(symlink(canary.folder.path, world.inbox.appendingPathComponent("Linked").path) == 0)

        let again = try RunningDaemon(world: world)  // Start-up's sweep is done by READY=1.
        #expect(!leftovers().contains(killed), "the killed upload's file is swept at start")
        #expect(Set(leftovers()) == [foreign, link])
        canary.verifyUntouched()

        // One that stays (planted a while ago while the daemon runs): check names it and fails.
        let control = world.root.appendingPathComponent("control.sock").path
        #expect(mkdir(world.inbox.path + "/Knives", 0o770) == 0)
        let stale = world.inbox.path + "/Knives/.upload-\(UUID().uuidString).part"
        #expect(FileManager.default.createFile(atPath: stale, contents: Data("cut".utf8)))
        var old = [timeval(tv_sec: time(nil) - 120, tv_usec: 0), timeval(tv_sec: time(nil) - 120, tv_usec: 0)]
        #expect(utimes(stale, &old) == 0)
        let check = try Utensilctl.run(["check", "--json"], socket: control)
        #expect(check.status == 1, "\(check.output) \(check.errors)")
        #expect(check.json?["uploadLeftovers"] as? [String] == [stale], "\(check.output)")
        let people = try Utensilctl.run(["check"], socket: control)
        #expect(people.output.contains("cut-off uploads") && people.output.contains(stale), "\(people.output)")
        #expect(try again.terminate() == 0)
    }
}
