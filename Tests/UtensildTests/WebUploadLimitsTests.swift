import Foundation
import Glibc
import Testing
import UtensilConfig
import UtensilDaemon
import UtensilTestSupport
import UtensilWeb

/// A signed-in user cannot take the daemon's descriptors with uploads: finished files are
/// closed, uploads in progress are capped per user and in all, a body has a deadline however
/// it trickles, and the ingest goes on meanwhile. Real uploads over the gallery's socket.
@Suite("web upload limits against utensild", .serialized, .tags(.spawnsProcesses))
struct WebUploadLimitsTests {
    /// The head of an upload whose body is sent by hand (its length promises more than is sent).
    static func head(cookie: String) -> Data {
        Data("POST /api/v1/uploads HTTP/1.1\r\nHost: localhost\r\nCookie: \(cookie)\r\nContent-Type: multipart/form-data; boundary=XyZzY\r\nContent-Length: 50000000\r\n\r\n".utf8)
    }

    /// A `category` field, then `files` file parts of a few bytes; the last one is left open.
    static func heldBody(files: Int, tag: String) -> Data {
        var body = Data("--XyZzY\r\nContent-Disposition: form-data; name=\"category\"\r\n\r\nKitchen\r\n".utf8)
        for index in 0..<files {
            body += Data("--XyZzY\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(tag)-\(index).jpg\"\r\n\r\nabc".utf8)
            if index < files - 1 { body += Data("\r\n".utf8) }
        }
        return body
    }

    /// Upload files still being written or waiting for their body's end, anywhere in the inbox.
    static func partFiles(_ world: TestWorld) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: world.inbox.path)) ?? [])
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(".upload-") && $0.hasSuffix(".part") }
    }

    /// ``WebAccessTests/world(extra:launcher:)``, once the gallery answers (its socket file
    /// appears at bind, a moment before it listens).
    static func world(launcher: [String] = []) throws -> (TestWorld, RunningDaemon, WebClient) {
        let (world, daemon, web, _) = try WebAccessTests.world(launcher: launcher)
        try daemon.waitUntil("the gallery to answer") { (try? web.get("/api/v1/status"))?.status == 200 }
        return (world, daemon, web)
    }

    static func openDescriptors(_ pid: Int32) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    @Test func moreFilesThanOneUploadTakesIs413AndLeavesNoPartFile() throws {
        let (world, daemon, web) = try Self.world()
        defer { _ = daemon; world.remove() }  // Held to the end: a released daemon is stopped.
        let (cookie, _) = try WebAccessTests.signIn(web)
        let files = (0...100).map { (name: "Fork-\($0).jpg", bytes: Data("abc".utf8)) }
        let reply = try WebAccessTests.upload(web, cookie: cookie, WebAccessTests.multipart(files))
        #expect(reply.status == 413, "\(reply.status): \(reply.text)")
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(reply.text.contains(#""code":"request-too-large""#) && reply.text.contains("at most 100 files"), "\(reply.text)")
        #expect(Self.partFiles(world).isEmpty, "\(Self.partFiles(world).count) part files left")
        #expect(world.files(in: world.inbox).isEmpty)
    }

    @Test func heldUploadsHoldNoDescriptorPerFinishedFileAreCappedPerUserAndDoNotStopTheIngest() throws {
        // The unit's descriptor limit: under it, 8 uploads of 99 finished files each would
        // exhaust the process if every finished file stayed open.
        let (world, daemon, web) = try Self.world(launcher: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
        defer { world.remove() }
        let pid = daemon.process.processIdentifier
        let (cookie, _) = try WebAccessTests.signIn(web)
        let before = try Self.openDescriptors(pid)

        let perUser = 8
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for index in 0..<perUser {
            let fd = try web.connect()
            held.append(fd)
            #expect(web.send(fd, Self.head(cookie: cookie) + Self.heldBody(files: 100, tag: "Held\(index)")))
        }
        // Every upload wrote 99 files and is writing its 100th.
        try daemon.waitUntil(seconds: 60, "the held uploads' files") { Self.partFiles(world).count == perUser * 100 }
        let during = try Self.openDescriptors(pid)
        // Each held upload: its connection, the file being written and its folder.
        #expect(during - before <= perUser * 3 + 8, "\(before) descriptors before, \(during) with \(perUser * 99) finished files held")

        // One more upload of the same user is refused before its body is read.
        let refused = try WebAccessTests.upload(web, cookie: cookie, WebAccessTests.multipart([("Whisk.jpg", Data("abc".utf8))]))
        #expect(refused.status == 429, "\(refused.status): \(refused.text)")
        #expect(refused.headers["retry-after"] == "\(UploadLimits.retryAfterSeconds)")
        #expect(refused.text.contains(#""code":"busy""#) && refused.text.contains("uploads in progress"), "\(refused.text)")

        // A photo dropped meanwhile is ingested; the control socket answers.
        let photo = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("ladle").path, seed: 4)])[0]
        try world.drop("Ladle.jpg", photo)
        try daemon.waitForCatalog(seconds: 30, "the photo dropped while uploads are held") { $0.contains { $0.name == "Ladle" } }
        let status = try Utensilctl.run(["status"], socket: world.root.appendingPathComponent("control.sock").path, timeout: 10)
        #expect(status.status == 0, "\(status.errors)")
        #expect(!daemon.log.contains("Too many open files"), "\(daemon.log)")

        // Cut off, the held uploads leave nothing behind and give their slots back.
        held.forEach { close($0) }
        held = []
        try daemon.waitUntil(seconds: 30, "the cut-off uploads' files to be removed") { Self.partFiles(world).isEmpty }
        try daemon.waitUntil(seconds: 30, "a new upload to be taken") {
            (try? WebAccessTests.upload(web, cookie: cookie, WebAccessTests.multipart([("Whisk.jpg", photo)])))?.status == 200
        }
    }

    @Test func anUploadTrickledAByteAtATimeIsCutAtItsDeadline() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let users = world.root.appendingPathComponent("web-users").path
        #expect(try WebAccessTests.ctl(["web-user", "add", "alice", "--users-file", users], input: WebAccessTests.password + "\n").status == 0)
        let socket = world.root.appendingPathComponent("web.sock").path
        var settings = InProcessDaemonTests.configuration(world)
        settings.webListen = .unix(path: socket)
        settings.webUsersFile = users
        let configuration = settings
        let deadline = 3.0
        let limits = WebLimits(
            connections: 16, connectionsPerAddress: 16, bodySeconds: 2,
            uploads: UploadLimits(perUser: 2, inAll: 4, bodySeconds: Int64(deadline)))
        let daemon = UtensilDaemon(
            configuration: configuration, readConfiguration: { configuration }, logger: TestWorld.quietLogger, notifier: nil,
            webLimits: limits)
        let group = try await daemon.makeServiceGroup()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { tasks.cancelAll() }
            let (held, cut) = try await Self.onThread { () throws -> (Double, Double) in
                let web = WebClient(socketPath: socket)
                try Poll.until(seconds: 30, "the gallery to answer") { (try? web.get("/api/v1/status"))?.status == 200 }
                let (cookie, _) = try WebAccessTests.signIn(web)
                let fd = try web.connect()
                defer { close(fd) }
                let started = Date()
                #expect(web.send(fd, Self.head(cookie: cookie) + Self.heldBody(files: 3, tag: "Trickle")))
                // A byte every 100 ms, far more often than any idle timer would allow for.
                var open = true
                while open, Date().timeIntervalSince(started) < deadline + 12 {
                    usleep(100_000)
                    open = web.send(fd, Data("x".utf8))
                    var byte: UInt8 = 0
                    if recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 { open = false }
                }
                let cut = Date().timeIntervalSince(started)
                try Poll.until(seconds: 10, "the cut-off upload's files to be removed") { Self.partFiles(world).isEmpty }
                return (open ? cut : 0, cut)
            }
            #expect(held == 0, "the trickling upload was still open after \(held) s")
            #expect(cut >= deadline - 0.5 && cut < deadline + 3, "cut after \(cut) s, its deadline \(deadline) s")
            await group.triggerGracefulShutdown()
        }
    }

    /// Runs blocking client work on a thread of its own, off the pool the in-process daemon
    /// serves on.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result(catching: work)) }.start()
        }
    }
}
