import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Clients that misbehave on purpose: the daemon keeps serving and ingesting.
@Suite("Control socket abuse", .serialized)
struct ControlSocketAbuseTests {
    static func socketPath(_ world: TestWorld) -> String { world.root.appendingPathComponent("control.sock").path }

    static func statusIsAnswered(_ world: TestWorld) throws -> Bool {
        let reply = try RawControlClient(path: socketPath(world)).ask(#"{"v":1,"command":"status"}"#)
        return reply["ok"] as? Bool == true
    }

    @Test func twoHundredConcurrentClientsAreAllAnswered() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        let path = Self.socketPath(world)
        // All connected at once before any asks, then all ask.
        let clients = try (0..<200).map { _ in try RawControlClient(path: path) }
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for client in clients {
                group.addTask { try client.ask(#"{"v":1,"command":"status"}"#)["ok"] as? Bool == true }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 200)
        #expect(try daemon.terminate() == 0)
    }

    @Test func aHugeLineWithoutNewlineGetsAnErrorAndTheConnectionCloses() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        let client = try RawControlClient(path: Self.socketPath(world))
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var sent = 0
        for _ in 0..<10 where client.send(chunk) { sent += 1 }  // 10 MiB, or until the daemon closes.
        let reply = client.readLine()
        #expect(reply?.contains("request-too-large") == true, "\(reply ?? "nil")")
        #expect(client.readLine() == nil)
        #expect(try Self.statusIsAnswered(world))
        #expect(try daemon.terminate() == 0)
    }

    @Test func randomBytesGetErrorRepliesNotACrash() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20 {
            let client = try RawControlClient(path: Self.socketPath(world))
            var bytes = (0..<Int.random(in: 1...4000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes.append(UInt8(ascii: "\n"))
            client.send(bytes)
            if let line = client.readLine() {
                #expect(line.contains(#""ok":false"#), "\(line)")
            }
        }
        #expect(try Self.statusIsAnswered(world))
        #expect(try daemon.terminate() == 0)
    }

    @Test func aFollowerThatNeverReadsDisturbsNobody() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        let follower = try RawControlClient(path: Self.socketPath(world))
        var size: Int32 = 4096
        setsockopt(follower.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        #expect(follower.send(#"{"v":1,"command":"events"}"# + "\n"))
        // Hundreds of events the follower never reads.
        let images = try TestImages.make((0..<120).map { TestImages.jpeg(world.root.path + "/p\($0)", width: 64, height: 48, seed: 500 + $0) })
        for (index, image) in images.enumerated() { try world.drop("Event \(index).jpg", image) }
        try daemon.waitForUtensils(120)
        #expect(try Self.statusIsAnswered(world))
        #expect(try daemon.terminate() == 0)
    }

    @Test func aClientThatLeavesMidReplyDisturbsNobody() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        for _ in 0..<50 {
            let client = try RawControlClient(path: Self.socketPath(world))
            client.send(#"{"v":1,"command":"list","limit":1000}"# + "\n" + #"{"v":1,"command":"status"}"# + "\n")
            // Closed (by deinit) without reading the replies.
        }
        #expect(try Self.statusIsAnswered(world))
        #expect(try daemon.terminate() == 0)
    }

    @Test func aLiveDaemonsSocketIsNeverTakenOverButAStaleOneIsReplaced() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let path = Self.socketPath(world)
        // A stale socket file, as a crashed daemon leaves it: nobody listens on it.
        let stale = try UnixSocket.bound(to: path, type: SOCK_STREAM)
        close(stale)
        let daemon = try RunningDaemon(world: world)
        #expect(try Self.statusIsAnswered(world))
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o660)
        #expect(try daemon.terminate() == 0)
        #expect(access(path, F_OK) != 0, "the socket file is removed on exit")
    }
}
