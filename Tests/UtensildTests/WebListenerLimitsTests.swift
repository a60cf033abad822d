import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// A stranger's idle connections cannot take the daemon's descriptors: the gallery holds a
/// bounded number, and the control socket, the watcher and the catalog keep working.
@Suite("web listener limits against utensild", .serialized, .tags(.spawnsProcesses))
struct WebListenerLimitsTests {
    @Test func elevenHundredIdleConnectionsDoNotStarveStatusOrIngest() throws {
        let world = try TestWorld()
        defer { world.remove() }
        // The unit's LimitNOFILE=1024, for the daemon alone.
        let (daemon, port) = try WebSignInTests.galleryOnLoopback(world, launcher: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
        defer { _ = daemon }
        let control = world.root.appendingPathComponent("control.sock").path

        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<1_100 { idle.append(try LoopbackSocket.connected(port: port, from: "127.0.0.2")) }
        // While the daemon takes the connections in, status answers within a second, every time.
        let watched = Date().addingTimeInterval(3)
        repeat {
            let status = try Utensilctl.run(["status", "--json"], socket: control, timeout: 10)
            #expect(status.status == 0, "\(status.errors)")
            #expect(status.seconds < 1, "status took \(status.seconds) s")
        } while Date() < watched

        // The watcher still sees a new folder and a drop in it, and the catalog commits it.
        let photo = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("fork").path, seed: 3)])[0]
        try FileManager.default.createDirectory(at: world.inbox.appendingPathComponent("Forks"), withIntermediateDirectories: false)
        try photo.write(to: world.inbox.appendingPathComponent("Forks/Fork.jpg"))
        try daemon.waitForUtensils(1, seconds: 10)

        // Another address is still served while the idle ones are held.
        let reply = try WebClient(port: port, from: "127.0.0.3").get("/api/v1/status")
        #expect(reply.status == 200)
        let again = try Utensilctl.run(["status"], socket: control, timeout: 10)
        #expect(again.status == 0 && again.seconds < 1, "status took \(again.seconds) s: \(again.errors)")
        // What was turned away is logged, with a count.
        try daemon.waitUntil(seconds: 10, "the daemon to log the connections it turned away") {
            daemon.log.contains("The web gallery turned away")
        }
    }

    @Test func aConnectionThatSendsNoCompleteRequestIsClosed() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let socket = world.root.appendingPathComponent("web.sock").path
        let daemon = try RunningDaemon(world: world, extra: ["--web-listen", "unix:" + socket])
        defer { _ = daemon }
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: socket) }
        let web = WebClient(socketPath: socket)
        // A head dribbled without its end: closed at the idle time-out (30 s), not held for ever.
        let fd = try web.connect()
        defer { close(fd) }
        #expect(web.send(fd, Data("GET / HTTP/1.1\r\nHost: localhost\r\n".utf8)))
        let started = Date()
        var buffer = [UInt8](repeating: 0, count: 1024)
        var count = 1
        while count > 0, Date().timeIntervalSince(started) < 45 {
            count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 && errno == EAGAIN { count = 1 }
        }
        #expect(count <= 0)
        #expect(Date().timeIntervalSince(started) < 45)
    }
}
