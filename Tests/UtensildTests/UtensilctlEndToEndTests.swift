import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// The real `utensilctl` against the real daemon: every command, both output forms, the
/// contract's exit codes and JSON fields.
@Suite("utensilctl against utensild", .serialized, .tags(.spawnsProcesses))
struct UtensilctlEndToEndTests {
    struct Run {
        var status: Int32
        var output: String
        var errors: String
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
        }
    }

    static func ctl(_ arguments: [String], socket: String, user: UInt32? = nil) throws -> Run {
        let process = Process()
        let binary = try UtensildProcess.built("utensilctl").path
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["UTENSIL_SOCKET"] = socket
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                   errors: String(decoding: err, as: UTF8.self))
    }

    /// A daemon with two utensils and one rejection.
    static func populated() throws -> (TestWorld, RunningDaemon, String) {
        let (world, daemon, _) = try populated { _ in [] }
        return (world, daemon, world.root.appendingPathComponent("control.sock").path)
    }

    /// A daemon started with the flags `extra` gives for its new world, once it took two
    /// utensils and one rejection; the three dropped files' bytes.
    static func populated(extra: (TestWorld) -> [String]) throws -> (TestWorld, RunningDaemon, [Data]) {
        let world = try TestWorld()
        let images = try TestImages.make([
            TestImages.jpeg(world.root.path + "/a", width: 800, height: 600, seed: 1),
            TestImages.png(world.root.path + "/b", seed: 2),
        ])
        try world.drop("Crème brûlée torch.jpg", images[0])
        try world.drop("包丁 🔪.png", images[1])
        try world.drop("Broken.jpg", Data("junk".utf8))
        let daemon = try RunningDaemon(world: world, extra: extra(world))
        try daemon.waitForUtensils(2)
        try daemon.waitUntil("the rejection") { world.files(in: world.rejected).contains("Broken.jpg") }
        return (world, daemon, images + [Data("junk".utf8)])
    }

    @Test func statusInBothForms() throws {
        let (world, daemon, socket) = try Self.populated()
        defer { world.remove() }
        let human = try Self.ctl(["status"], socket: socket)
        #expect(human.status == 0)
        #expect(human.output.contains(world.inbox.path))
        let json = try #require(try Self.ctl(["status", "--json"], socket: socket).json)
        for key in ["version", "pid", "uptimeSeconds", "inbox", "stateDir", "utensils", "queued", "inFlight", "ingested", "rejected", "lastError"] {
            #expect(json.keys.contains(key), "status --json lacks \(key)")
        }
        #expect(json["utensils"] as? Int == 2)
        #expect(json["rejected"] as? Int == 1)
        #expect(json["pid"] as? Int == Int(daemon.process.processIdentifier))
        #expect(try Self.ctl(["--json", "status"], socket: socket).json?["inbox"] as? String == world.inbox.path)
        #expect(try daemon.terminate() == 0)
    }

    @Test func listSearchSortAndPages() throws {
        let (world, daemon, socket) = try Self.populated()
        defer { world.remove() }
        let page = try #require(try Self.ctl(["list", "--json"], socket: socket).json)
        let utensils = try #require(page["utensils"] as? [[String: Any]])
        #expect(utensils.count == 2)
        #expect(page.keys.contains("next") && page["next"] is NSNull)
        for key in ["id", "name", "extension", "createdAt", "width", "height", "bytes", "original", "thumbnail"] {
            #expect(utensils[0].keys.contains(key), "a utensil lacks \(key)")
        }
        #expect((utensils[0]["createdAt"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        #expect(FileManager.default.fileExists(atPath: utensils[0]["original"] as? String ?? ""))

        let found = try #require(try Self.ctl(["list", "--search", "CREME", "--json"], socket: socket).json)
        #expect((found["utensils"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Crème brûlée torch"])

        let first = try #require(try Self.ctl(["--json", "list", "--sort", "name", "--limit", "1"], socket: socket).json)
        let cursor = try #require(first["next"] as? String)
        let second = try #require(try Self.ctl(["list", "--sort", "name", "--limit", "1", "--after", cursor, "--json"], socket: socket).json)
        let names = [first, second].compactMap { ($0["utensils"] as? [[String: Any]])?.first?["name"] as? String }
        #expect(names == ["Crème brûlée torch", "包丁 🔪"])

        let table = try Self.ctl(["list"], socket: socket)
        #expect(table.status == 0 && table.output.contains("包丁 🔪") && table.output.contains("Crème brûlée torch"))
        #expect(try daemon.terminate() == 0)
    }

    @Test func showRenameDeleteAndTheirFailures() throws {
        let (world, daemon, socket) = try Self.populated()
        defer { world.remove() }
        let shown = try #require(try Self.ctl(["show", "crème brûlée torch", "--json"], socket: socket).json)
        let id = try #require(shown["id"] as? String)
        #expect(try Self.ctl(["show", id], socket: socket).output.contains("Crème brûlée torch"))

        let missing = try Self.ctl(["show", "Colander"], socket: socket)
        #expect(missing.status == 1 && !missing.errors.isEmpty && missing.errors.split(separator: "\n").count == 1)

        let badName = try Self.ctl(["rename", id, "Line\nbreak"], socket: socket)
        #expect(badName.status == 1)
        let clash = try Self.ctl(["rename", id, "包丁 🔪"], socket: socket)
        #expect(clash.status == 1)
        let renamed = try #require(try Self.ctl(["rename", id, "  Torch  ", "--json"], socket: socket).json)
        #expect(renamed["name"] as? String == "Torch")
        #expect(renamed["updatedAt"] is String, "a rename sets updatedAt")

        let original = try #require(shown["original"] as? String)
        let thumbnail = try #require(shown["thumbnail"] as? String)
        let deleted = try Self.ctl(["delete", id], socket: socket)
        #expect(deleted.status == 0 && deleted.output.contains("trash"))
        #expect(FileManager.default.fileExists(atPath: original), "the trash keeps the files")
        #expect(try Self.ctl(["delete", id], socket: socket).status == 1)
        #expect(try Self.ctl(["delete", "--now", id], socket: socket).status == 0)
        #expect(!FileManager.default.fileExists(atPath: original) && !FileManager.default.fileExists(atPath: thumbnail))
        #expect(try Self.ctl(["delete", "--now", id], socket: socket).status == 1)
        let check = try #require(try Self.ctl(["check", "--json"], socket: socket).json)
        #expect(check["ok"] as? Bool == true)
        #expect(try daemon.terminate() == 0)
    }

    @Test func rejectedAndRetry() throws {
        let (world, daemon, socket) = try Self.populated()
        defer { world.remove() }
        let listing = try Self.ctl(["rejected", "--json"], socket: socket)
        #expect(listing.status == 0)
        #expect(listing.output.contains("Broken.jpg") && listing.output.contains("corrupt-image"))
        #expect(try Self.ctl(["retry", "Nothing.jpg"], socket: socket).status == 1)
        let retried = try Self.ctl(["retry", "Broken.jpg"], socket: socket)
        #expect(retried.status == 0)
        // Back in the inbox, the same junk is rejected again, under the same name.
        try daemon.waitUntil("the retried file to be rejected again") {
            world.files(in: world.rejected).contains("Broken.jpg.error.json")
                && (try? Self.ctl(["status", "--json"], socket: socket).json?["rejected"] as? Int) == 2
        }
        #expect(try daemon.terminate() == 0)
    }

    @Test func eventsFollowIngestsAndRejections() throws {
        let (world, daemon, socket) = try Self.populated()
        defer { world.remove() }
        // The protocol confirms the subscription first, so nothing dropped after it is missed.
        let follower = try RawControlClient(path: socket)
        #expect(follower.send(#"{"v":1,"command":"events"}"# + "\n"))
        let subscribed = try #require(follower.readLine())
        #expect(subscribed.contains(#""subscribed":true"#))
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/c", seed: 3)])[0]
        try world.drop("Whisk.jpg", image)
        try world.drop("Junk.jpg", Data("junk".utf8))
        // A name that is not UTF-8 travels in the one text form `rejected` uses: `\xFF`, not U+FFFD.
        let rawName = Array((world.inbox.path + "/Bad").utf8) + [0xFF] + Array(".jpg".utf8) + [0]
        let fd = rawName.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        #expect(fd >= 0)
        _ = write(fd, "junk", 4)
        close(fd)
        // Events of the populating drops may still arrive first: the daemon publishes them just
        // after the row or the sidecar the set-up waits for. Read until the three wanted are seen.
        func sawAllThree(_ events: [String]) -> Bool {
            events.contains { $0.contains("Whisk.jpg") } && events.contains { $0.contains("Junk.jpg") }
                && events.contains { $0.contains(#"Bad\\xFF.jpg"#) }
        }
        var events: [String] = []
        while !sawAllThree(events), events.count < 20, let line = follower.readLine() { events.append(line) }
        #expect(events.contains { $0.contains(#""kind":"ingested""#) && $0.contains("Whisk.jpg") }, "\(events)")
        #expect(events.contains { $0.contains(#""kind":"rejected""#) && $0.contains("Junk.jpg") && $0.contains("corrupt-image") })
        #expect(events.contains { $0.contains(#""inboxFile":"Bad\\xFF.jpg""#) }, "\(events)")
        #expect(!events.joined().contains("\u{FFFD}"))
        #expect(try daemon.terminate() == 0)
    }

    @Test func exitCodesForUsageUnreachableAndPermission() throws {
        let (world, daemon, socket) = try Self.populated()
        defer { world.remove() }
        #expect(try Self.ctl(["frobnicate"], socket: socket).status == 64)
        #expect(try Self.ctl(["list", "--limit", "many"], socket: socket).status == 64)
        let unreachable = try Self.ctl(["status"], socket: world.root.path + "/nothing.sock")
        #expect(unreachable.status == 69)
        #expect(unreachable.errors.contains(world.root.path + "/nothing.sock"))
        #expect(unreachable.errors.contains("systemctl status utensild"))

        // An unprivileged user outside the socket's group may read but not change.
        #expect(chmod(socket, 0o666) == 0)
        #expect(chmod(world.root.path, 0o755) == 0)
        let list = try Self.ctl(["list", "--json"], socket: socket, user: 65534)
        #expect(list.status == 0, "\(list.errors)")
        let id = try #require((list.json?["utensils"] as? [[String: Any]])?.first?["id"] as? String)
        let denied = try Self.ctl(["delete", id], socket: socket, user: 65534)
        #expect(denied.status == 77, "\(denied.errors)")
        #expect(try Self.ctl(["rename", id, "Mine"], socket: socket, user: 65534).status == 77)
        #expect(try Self.ctl(["retry", "--all"], socket: socket, user: 65534).status == 77)

        // And the socket's own mode keeps out whoever it does not admit.
        #expect(chmod(socket, 0o660) == 0)
        let refused = try Self.ctl(["status"], socket: socket, user: 65534)
        #expect(refused.status == 77)
        var socketStatus = stat()
        #expect(stat(socket, &socketStatus) == 0)
        let group = try #require(getgrgid(socketStatus.st_gid))
        #expect(refused.errors.contains("member of the group \(String(cString: group.pointee.gr_name))"), "\(refused.errors)")
        #expect(try daemon.terminate() == 0)
    }
}
