import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Clients that misbehave on purpose: the daemon keeps serving and ingesting.
@Suite("Control socket abuse", .serialized, .tags(.spawnsProcesses))
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

/// One user cannot take every slot of the control socket: each holds at most
/// `ControlProtocol.maximumClientsPerUser` connections, and root always gets in.
@Suite("Control socket fairness", .serialized, .tags(.spawnsProcesses))
struct ControlSocketFairnessTests {
    /// A tiny client run as another user: opens `count` `events` followers, prints how many
    /// were subscribed and how many turned away, then holds them until its stdin closes.
    static let followers = #"""
        import socket, sys
        path, count = sys.argv[1], int(sys.argv[2])
        held, subscribed, refused = [], 0, 0
        for _ in range(count):
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(30)
            s.connect(path)
            try:
                s.sendall(b'{"v":1,"command":"events"}\n')
            except OSError:
                pass
            line = s.makefile("rb").readline()
            if b'"subscribed"' in line:
                subscribed += 1
                held.append(s)
            else:
                refused += 1
                if b'"busy"' not in line:
                    print("unexpected reply", line, file=sys.stderr)
                s.close()
        print(subscribed, refused, flush=True)
        sys.stdin.read()
        """#

    final class Crowd {
        let process = Process()
        let input = Pipe()
        let subscribed: Int
        let refused: Int

        init(uid: UInt32, count: Int, socket: String, script: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", script, socket, String(count)]
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            var line = Data()
            while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
                line.append(first)
            }
            let numbers = String(decoding: line, as: UTF8.self).split(separator: " ").compactMap { Int($0) }
            guard numbers.count == 2 else { throw TestFailure("the crowd of uid \(uid) said \(String(decoding: line, as: UTF8.self).debugDescription)") }
            (subscribed, refused) = (numbers[0], numbers[1])
        }

        func leave() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    /// `ControlProtocol`'s figures (that module is not imported here).
    enum ControlProtocolLimits {
        static let total = 512
        static let reserved = 8
    }

    @Test func oneUserHoldsAtMostItsShareAndRootAlwaysGetsIn() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world, extra: ["--socket-mode", "0666"])
        let socket = ControlSocketAbuseTests.socketPath(world)
        let script = world.root.appendingPathComponent("followers.py").path
        try Self.followers.write(toFile: script, atomically: true, encoding: .utf8)
        #expect(chmod(world.root.path, 0o755) == 0)

        // One user asks for every slot and gets its share.
        let greedy = try Crowd(uid: 60_000, count: 600, socket: socket, script: script)
        defer { greedy.leave() }
        #expect(greedy.subscribed == 64 && greedy.refused == 536, "\(greedy.subscribed) subscribed, \(greedy.refused) refused")
        // Seven more users take the rest of the ordinary slots (512 less the 8 kept)…
        var others: [Crowd] = []
        defer { others.forEach { $0.leave() } }
        for uid in 60_001...60_007 { others.append(try Crowd(uid: UInt32(uid), count: 64, socket: socket, script: script)) }
        let subscribed: [Int] = others.map(\.subscribed)
        let ordinarySlots = ControlProtocolLimits.total - ControlProtocolLimits.reserved - 64
        #expect(subscribed.reduce(0, +) == ordinarySlots, "\(subscribed)")
        // …so a ninth user is turned away, and root still gets in.
        let late = try Crowd(uid: 60_008, count: 1, socket: socket, script: script)
        defer { late.leave() }
        #expect(late.subscribed == 0)
        let status = try UtensilctlEndToEndTests.ctl(["status", "--json"], socket: socket)
        #expect(status.status == 0, "root was turned away: \(status.errors)")
        #expect(try daemon.terminate() == 0)
    }
}
