import Foundation
import Glibc
import Synchronization
import Testing
import UtensilTestSupport

/// A slow-loris on every connection slot: 512 clients each dribbling a byte of a request
/// line now and then and never finishing it. An operator's `utensilctl status` must still be
/// answered, ingest goes on, the daemon's memory stays bounded — and (long profile) the
/// dribblers are cut off by the idle time-out, which counts whole requests, not bytes.
@Suite("Stress: slow-loris", .serialized, .tags(.spawnsProcesses))
struct StressSlowLorisTests {
    static let clientLimit = 512
    static let peakMemoryLimitMiB = 256.0

    @Test func slowLorisOnEverySlotDoesNotLockOutOperators() throws {
        let profile = StressProfile.current
        print(profile)
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        let pid = daemon.process.processIdentifier
        let before = try ProcessMemory.of(pid)

        let attackers = try (0..<Self.clientLimit).map { _ in try RawControlClient(path: Stress.socket(world)) }
        for attacker in attackers { attacker.send(#"{"v":1,"comm"#) }
        let dribbler = Dribbler(attackers)
        defer { _ = dribbler.stop() }
        // Every attacker holds a connection in the daemon before the operator comes.
        try daemon.waitUntil(seconds: 60, "the daemon to accept all \(Self.clientLimit) connections") {
            Self.acceptedConnections(pid, socket: Stress.socket(world)) >= Self.clientLimit
        }

        // The operator: the real utensilctl, several times, each answered.
        var slowest = 0.0
        var answered = 0
        for _ in 0..<5 {
            let run = try Utensilctl.run(["status", "--json"], socket: Stress.socket(world), timeout: 30)
            #expect(run.status == 0, "utensilctl status during a slow-loris: exit \(run.status) \(run.output) \(run.errors)")
            #expect(run.json?["pid"] as? Int == Int(pid))
            slowest = max(slowest, run.seconds)
            answered += run.status == 0 ? 1 : 0
        }
        // Ingest goes on meanwhile.
        let photos = try stressCorpus.photos(.small, count: 3)
        try Stress.copyIn(photos.map(\.url), to: world.inbox)
        try Stress.waitUntilSettled(world, utensils: 3, rejections: 0, seconds: 60, daemon: daemon)

        var cutOff = 0
        if profile.slowLorisWaitsForIdleTimeout {
            // Dribbling bytes does not keep a connection: a request must be completed within
            // the idle time-out (60 s).
            try daemon.waitUntil(seconds: 150, "the idle time-out to close every dribbling client") {
                dribbler.closedCount == Self.clientLimit
            }
            cutOff = dribbler.closedCount
        }
        let memory = try ProcessMemory.of(pid)
        let dribbled = dribbler.stop()
        #expect(memory.peakResidentMiB < Self.peakMemoryLimitMiB, "utensild's memory under a slow-loris: \(memory)")
        #expect(daemon.process.isRunning)
        try InvariantChecker(world: world).verify(
            inputs: try photos.map { try Data(contentsOf: $0.url) }, inbox: .mustBeEmpty, controlSocket: Stress.socket(world))
        #expect(try daemon.terminate() == 0)
        StressProfile.report(
            "slow-loris",
            "\(Self.clientLimit) clients dribbling \(dribbled) bytes of never-finished requests; \(answered) of 5 utensilctl status answered (slowest \(String(format: "%.2f", slowest)) s), "
                + "3 photos ingested meanwhile; \(profile.slowLorisWaitsForIdleTimeout ? "\(cutOff) dribblers cut off by the idle time-out; " : "")"
                + "memory before \(before), after \(memory)")
    }

    /// How many connections to the control socket the process has accepted: its sockets that
    /// `/proc/net/unix` lists as connected (state 03) under the control socket's path. (The
    /// process's other sockets come and go — a status probe, a notification — and are not
    /// counted.)
    static func acceptedConnections(_ pid: Int32, socket: String) -> Int {
        let folder = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let inodes = Set(entries.compactMap { entry -> Substring? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + entry),
                target.hasPrefix("socket:[") else { return nil }
            return target.dropFirst("socket:[".count).dropLast()
        })
        // Read to the end: procfs reports a size of 0, and the table is many pages long.
        let table = String(decoding: FileHandle(forReadingAtPath: "/proc/net/unix")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        return table.split(separator: "\n").dropFirst().filter { line in
            // Num RefCount Protocol Flags Type St Inode Path
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count >= 8 && fields[5] == "03" && inodes.contains(fields[6]) && fields[7...].joined(separator: " ") == socket
        }.count
    }
}

/// Sends one more byte of an unfinished request to the next client every few milliseconds,
/// round-robin, on a thread of its own: each client sends something every second or two.
final class Dribbler: @unchecked Sendable {
    private let stopped = Atomic<Bool>(false)
    private let closed = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    init(_ clients: [RawControlClient]) {
        Thread { [self] in
            var open = Array(repeating: true, count: clients.count)
            var index = 0
            while !stopped.load(ordering: .relaxed) {
                if open[index] {
                    if clients[index].send(" ") {
                        bytes.add(1, ordering: .relaxed)
                    } else {
                        open[index] = false
                        closed.add(1, ordering: .relaxed)
                    }
                }
                index = (index + 1) % clients.count
                usleep(3_000)  // The attacker's pace: a byte per client every ~1.5 s.
            }
            done.signal()
        }.start()
    }

    var closedCount: Int { closed.load(ordering: .relaxed) }

    /// Stops dribbling; returns how many bytes were sent.
    func stop() -> Int {
        if !stopped.exchange(true, ordering: .relaxed) { done.wait() }
        return bytes.load(ordering: .relaxed)
    }
}
