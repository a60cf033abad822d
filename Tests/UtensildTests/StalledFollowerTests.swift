import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Followers of the live events that never read cost the daemon a bounded queue each: they
/// are cut off, never buffered without bound, and event streams cannot take the gallery's
/// slots from a new visitor.
@Suite("stalled event followers against utensild", .serialized, .tags(.spawnsProcesses))
struct StalledFollowerTests {
    /// Category renames published as events, through one control connection.
    static func renameBackAndForth(_ times: Int, socket: String) throws {
        let client = try RawControlClient(path: socket)
        for round in 0..<times {
            let (from, to) = round % 2 == 0 ? ("Pans", "Pots") : ("Pots", "Pans")
            let reply = try client.ask(#"{"v":1,"command":"category-rename","category":"\#(from)","newName":"\#(to)"}"#)
            guard reply["ok"] as? Bool == true else { throw TestFailure("category-rename failed: \(reply)") }
        }
    }

    /// Everything `fd` holds until the daemon closes it (or `seconds` pass: then nil).
    static func readUntilClosed(_ fd: Int32, seconds: Double) -> String? {
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                return String(decoding: received, as: UTF8.self)
            }
        }
        return nil
    }

    /// Whether the first bytes `fd` receives within `seconds` begin an HTTP 200 answer.
    static func answered200(_ fd: Int32, seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 && String(decoding: buffer[..<count], as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }

    static func occurrences(of needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func followersThatNeverReadAreCutOffAfterABoundedRun() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("pan").path, seed: 5)])[0]
        try FileManager.default.createDirectory(at: world.inbox.appendingPathComponent("Pans"), withIntermediateDirectories: false)
        try photo.write(to: world.inbox.appendingPathComponent("Pans/Pan.jpg"))
        // The gallery on a Unix socket, as behind a reverse proxy: the kernel holds little for
        // a reader that does not read, so the daemon's own queues are what is tested.
        let webSocket = world.root.appendingPathComponent("web.sock").path
        let daemon = try RunningDaemon(world: world, extra: ["--web-listen", "unix:" + webSocket])
        defer { _ = daemon }
        try daemon.waitForUtensils(1)
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: webSocket) }
        let control = world.root.appendingPathComponent("control.sock").path

        // Gallery pages and `utensilctl events` that subscribe, then never read.
        var web: [Int32] = []
        defer { web.forEach { close($0) } }
        for _ in 0..<6 {
            let fd = try UnixSocket.connected(to: webSocket)
            let head = "GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\n\r\n"
            #expect(send(fd, head, head.utf8.count, Int32(MSG_NOSIGNAL)) == head.utf8.count)
            // The head and the stream's first comment come once it is subscribed.
            #expect(Self.answered200(fd, seconds: 10))
            web.append(fd)
        }
        var followers: [RawControlClient] = []
        for _ in 0..<2 {
            let follower = try RawControlClient(path: control)
            #expect(follower.send(#"{"v":1,"command":"events"}"# + "\n"))
            #expect(follower.readLine()?.contains("subscribed") == true)
            followers.append(follower)
        }
        let renames = 3_000
        try Self.renameBackAndForth(renames, socket: control)
        #expect(kill(daemon.process.processIdentifier, 0) == 0, "the daemon is still running")

        // Each stalled follower was cut off: reading now, it finds a bounded run of events
        // (its queues and what the socket held), then the end: the daemon closed it.
        for fd in web {
            let text = try #require(Self.readUntilClosed(fd, seconds: 60), "a stalled event stream was never closed")
            let delivered = Self.occurrences(of: "event: category", in: text)
            #expect(delivered < renames * 2 / 3, "a stalled gallery stream got \(delivered) of \(renames) events: it was buffered, not cut off")
        }
        for follower in followers {
            let text = try #require(Self.readUntilClosed(follower.fd, seconds: 60), "a stalled `events` follower was never closed")
            let delivered = Self.occurrences(of: #""kind":"category""#, in: text)
            #expect(delivered < renames * 2 / 3, "a stalled `events` follower got \(delivered) of \(renames) events: it was buffered, not cut off")
        }

        // The daemon keeps serving.
        #expect(try WebClient(socketPath: webSocket).get("/api/v1/status").status == 200)
        let status = try Utensilctl.run(["status", "--json"], socket: control, timeout: 10)
        #expect(status.status == 0, "\(status.errors)")
    }

    @Test func aFollowerThatReadsLateIsToldItFellBehind() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("pan").path, seed: 6)])[0]
        try FileManager.default.createDirectory(at: world.inbox.appendingPathComponent("Pans"), withIntermediateDirectories: false)
        try photo.write(to: world.inbox.appendingPathComponent("Pans/Pan.jpg"))
        let daemon = try RunningDaemon(world: world)
        defer { _ = daemon }
        try daemon.waitForUtensils(1)
        let control = world.root.appendingPathComponent("control.sock").path
        let follower = try RawControlClient(path: control)
        #expect(follower.send(#"{"v":1,"command":"events"}"# + "\n"))
        #expect(follower.readLine()?.contains("subscribed") == true)
        try Self.renameBackAndForth(2_000, socket: control)
        // Read at once: what waited arrives, then a `busy` line saying it fell behind.
        let text = try #require(Self.readUntilClosed(follower.fd, seconds: 30), "the follower that fell behind was never closed")
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains(#""code":"busy""#) && last.contains("fell"), "the last line: \(last)")
    }

    @Test func eventStreamsLeaveSlotsForNewVisitors() throws {
        let world = try TestWorld()
        defer { world.remove() }
        // A descriptor limit of 1024: 192 connections, 96 of them event streams, 16 from one address.
        let (daemon, port) = try WebSignInTests.galleryOnLoopback(world, launcher: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
        defer { _ = daemon }
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        var streams = 0
        // Three addresses each try to hold 64 event streams.
        for index in 0..<192 {
            guard let fd = try? LoopbackSocket.connected(port: port, from: "127.0.0.\(2 + index % 3)") else { continue }
            held.append(fd)
            let head = "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = send(fd, head, head.utf8.count, Int32(MSG_NOSIGNAL))
        }
        for fd in held where Self.answered200(fd, seconds: 5) { streams += 1 }
        // The rest were answered 503, or turned away with the connection.
        #expect(streams == 3 * 16, "\(streams) of 192 event streams from three addresses were served")
        // A new visitor is served, and can follow the events too.
        let visitor = WebClient(port: port, from: "127.0.0.9")
        #expect(try visitor.get("/").status == 200)
        let stream = try LoopbackSocket.connected(port: port, from: "127.0.0.9")
        defer { close(stream) }
        let head = "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        _ = send(stream, head, head.utf8.count, Int32(MSG_NOSIGNAL))
        #expect(Self.answered200(stream, seconds: 10))

        // Pages that are left give their streams' slots back at once, not at the streams'
        // next keep-alive (15 s): 127.0.0.2 closes its streams and is served again promptly.
        held.forEach { close($0) }
        held = []
        var served = false
        try Poll.until(seconds: 5, "a stream from an address whose streams closed") {
            guard let fd = try? LoopbackSocket.connected(port: port, from: "127.0.0.2") else { return false }
            held.append(fd)
            _ = send(fd, head, head.utf8.count, Int32(MSG_NOSIGNAL))
            served = Self.answered200(fd, seconds: 5)
            return served
        }
        #expect(served)
    }
}
