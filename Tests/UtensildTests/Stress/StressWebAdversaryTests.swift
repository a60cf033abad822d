import Foundation
import Glibc
import Synchronization
import Testing
import UtensilTestSupport

/// The gallery's doors attacked while a burst of drops runs, the daemon under the unit's
/// descriptor limit (1,024): more idle TCP connections than it has descriptors, slow ones that
/// never finish their headers, parallel sign-in guesses from another address, uploads into a
/// category folder that is a link to a folder outside (`Evil~`: a name the watcher ignores, so
/// the link stays), a group member trying to rewrite every upload waiting in the inbox, and
/// HEIC/AVIF files whose size boxes lie, and gallery pages and `events` followers that never
/// read. Every photo of the burst and every accepted upload is one utensil (the upload's
/// bytes, added by its web user), every lying file one `corrupt-image` rejection; nothing
/// outside the daemon's folders is written; `utensilctl status` answers within 1 s throughout.
@Suite("Stress: web adversary", .serialized, .tags(.spawnsProcesses))
struct StressWebAdversaryTests {
    static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    @Test func hostileWebTrafficBesideABurstLosesNothingAndWritesNothingOutside() throws {
        let profile = StressProfile.current
        print(profile)
        let photos = try stressCorpus.photos(.small, count: profile.adversaryBurst + profile.adversaryRounds)
        let burst = Array(photos.prefix(profile.adversaryBurst))
        let uploads = Array(photos.dropFirst(burst.count))
        let world = try TestWorld()
        defer { world.remove() }
        let users = world.root.appendingPathComponent("web-users").path
        let added = try WebAccessTests.ctl(["web-user", "add", "alice", "--users-file", users], input: WebAccessTests.password + "\n")
        #expect(added.status == 0, "\(added.errors)")
        let lying = try DecodeBombs.make(
            in: world.root.appendingPathComponent("lying"), pngs: 0, jpegs: 0, lyingHEIC: 1, lyingAVIF: 1, lyingSide: 4096)
        let canary = try OutsideCanary(in: world.root, files: ["Ladle.jpg": try Data(contentsOf: uploads[0].url)])
        #expect(symlink(canary.folder.path, world.inbox.appendingPathComponent("Evil~").path) == 0)
        let port = try LoopbackSocket.freePort()
        let daemon = try RunningDaemon(
            world: world,
            // A settle time long enough that each upload still waits in the inbox when its rewrite is tried.
            extra: ["--workers", "2", "--log-level", "info", "--settle-seconds", "1", "--web-listen", "127.0.0.1:\(port)", "--web-users-file", users],
            launcher: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
        let web = WebClient(port: port)
        try daemon.waitUntil(seconds: 10, "the gallery to listen") { (try? web.get("/api/v1/status").status) == 200 }
        let signIn = try web.request(
            "POST", "/login", headers: Self.form,
            body: Data("name=alice&password=\(WebAccessTests.password.replacingOccurrences(of: " ", with: "+"))".utf8))
        let cookie = try #require(signIn.headers["set-cookie"].map { String($0.prefix { $0 != ";" }) }, "sign-in: \(signIn.status)")
        let poller = StatusPoller(socket: Stress.socket(world), deadline: 1)
        let began = Date()

        // More idle connections than the daemon has descriptors, from one address, and slow
        // ones that send half a request line and stop.
        var held: [Int32] = []
        for index in 0..<1_100 {
            guard let fd = try? LoopbackSocket.connected(port: port, from: "127.0.0.3") else { continue }
            if index % 10 == 0 { _ = "GET / HTTP/1.1\r\nHost: 127".withCString { send(fd, $0, 20, Int32(MSG_NOSIGNAL)) } }
            held.append(fd)
        }
        defer { for fd in held { close(fd) } }
        // Gallery pages and `events` followers that subscribe, then never read, with a
        // receive buffer as small as the kernel allows: each is cut off, never buffered.
        var stalled: [Int32] = []
        defer { for fd in stalled { close(fd) } }
        for _ in 0..<16 {
            guard let fd = try? LoopbackSocket.connected(port: port, from: "127.0.0.4", receiveBuffer: 2048) else { continue }
            let head = "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = send(fd, head, head.utf8.count, Int32(MSG_NOSIGNAL))
            stalled.append(fd)
        }
        var stalledFollowers: [RawControlClient] = []
        for _ in 0..<4 {
            let follower = try RawControlClient(path: Stress.socket(world))
            follower.send(#"{"v":1,"command":"events"}"# + "\n")
            stalledFollowers.append(follower)
        }

        // The burst, and the lying files.
        let staged = try Stress.stage(burst, in: world.root.appendingPathComponent("staging"))
        try Stress.moveIn(staged, to: world.inbox)
        for (name, bytes) in lying { try world.drop(name, bytes) }

        // Parallel guesses from another address, while alice uploads (each upload raced by a
        // group member trying to rewrite what waits in the inbox) and tries the linked categories.
        let guessesDone = DispatchSemaphore(value: 0)
        Thread { [port] in
            let attacker = WebClient(port: port, from: "127.0.0.2")
            DispatchQueue.concurrentPerform(iterations: 60) { index in
                _ = try? attacker.request("POST", "/login", headers: Self.form, body: Data("name=alice&password=guess\(index)".utf8))
            }
            guessesDone.signal()
        }.start()
        for folder in [world.root, world.inbox] { chmod(folder.path, 0o755) }
        var accepted: [String] = []
        var rewritesTried = 0
        for (index, photo) in uploads.enumerated() {
            let bytes = try Data(contentsOf: photo.url)
            let reply = try WebAccessTests.upload(
                web, cookie: cookie, WebAccessTests.multipart([("Upload \(index).jpg", bytes)], fields: [("category", "Kitchen")]))
            if reply.text.contains(#""status":"accepted""#) { accepted.append(photo.sha256) }
            let waiting = world.inbox.appendingPathComponent("Kitchen/Upload \(index).jpg").path
            var status = stat()
            if lstat(waiting, &status) == 0 {
                rewritesTried += 1
                let rewrite = "printf 'not the photo' > '\(waiting)'"
                #expect(try UploadConfinementTests.asGroupMember(gid: status.st_gid, rewrite) != 0, "a group member rewrote \(waiting)")
            }
            let refused = try WebAccessTests.upload(
                web, cookie: cookie, WebAccessTests.multipart([("Outside \(index).jpg", bytes)], fields: [("category", "Evil~")]))
            #expect(refused.text.contains(#""status":"refused""#), "Evil~: \(refused.text)")
        }
        #expect(accepted.count == uploads.count, "every upload was accepted")
        #expect(rewritesTried > 0, "no upload was still waiting when its rewrite was tried")

        try Self.waitUntilIdle(world, daemon: daemon, seconds: 120 + Double(burst.count) * 0.5)
        let seconds = Date().timeIntervalSince(began)
        #expect(guessesDone.wait(timeout: .now() + 60) == .success, "the guesses were answered")
        let polled = poller.stop()
        #expect(polled.failures.isEmpty, "status failed: \(polled.failures.prefix(3))")
        #expect(polled.slowest < 1, "status took \(polled.slowest) s")
        let stillServed = try web.get("/api/v1/status")
        #expect(stillServed.status == 200, "the gallery still answers a new client")
        #expect(try daemon.terminate() == 0)

        canary.verifyUntouched()
        #expect(Self.regularFiles(below: world.inbox).isEmpty, "drops left: \(Self.regularFiles(below: world.inbox).prefix(5))")
        let report = try InvariantChecker(world: world).examine(
            inputHashes: burst.map(\.sha256) + accepted + lying.values.map(sha256Hex), inbox: .mayHoldDrops)
        #expect(report.rejectionReasons["corrupt-image"] == lying.count)
        StressProfile.report(
            "web adversary",
            "\(burst.count) drops and \(accepted.count) uploads beside \(held.count) idle or slow connections, 60 parallel guesses, linked categories, \(rewritesTried) rewrite attempts, \(lying.count) lying HEIF files and \(stalled.count + stalledFollowers.count) followers that never read, settled in \(Int(seconds)) s: "
                + "\(report.census.utensils) utensils, \(report.census.rejections) rejections, status answered \(polled.answers) times (slowest \(String(format: "%.2f", polled.slowest)) s), nothing outside touched, 0 lost")
    }

    /// Regular files below `folder`, never through a link (the planted `Evil~` stays, as do the
    /// category folders).
    static func regularFiles(below folder: URL) -> [String] {
        let keys: [URLResourceKey] = [.isRegularFileKey, .isSymbolicLinkKey]
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else { return [] }
        var found: [String] = []
        for case let url as URL in walk {
            let values = try? url.resourceValues(forKeys: Set(keys))
            if values?.isSymbolicLink == true { walk.skipDescendants() } else if values?.isRegularFile == true { found.append(url.path) }
        }
        return found
    }

    /// Polls (with a deadline) until no drop is left in the inbox and nothing is queued or in flight.
    static func waitUntilIdle(_ world: TestWorld, daemon: RunningDaemon, seconds: Double) throws {
        try daemon.waitUntil(seconds: seconds, "the drops and uploads to settle") {
            let status = try? Stress.status(world)
            return (status?["queued"] as? Int) == 0 && (status?["inFlight"] as? Int) == 0 && regularFiles(below: world.inbox).isEmpty
        }
    }
}
