import Foundation
import Glibc
import Synchronization
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilTestSupport

/// How hard the stress suite pushes: `short` inside `make test`, `long` for `make stress`
/// (`UTENSIL_STRESS=long`). `UTENSIL_STRESS_SEED=<n>` replays a run's random choices.
struct StressProfile: Sendable, CustomStringConvertible {
    var name: String
    var seed: UInt64
    // Burst.
    var burstSmall: Int
    var burstLarge: Int
    // kill -9 loop.
    var kills: Int
    var killSmall: Int
    var killLarge: Int
    var killJunk: Int
    // Disk full: drops made while full, and how many retries each must survive before space is freed.
    var diskFullDrops: Int
    var diskFullRetryRounds: Int
    // Database trouble: drops per fault and lock cycles.
    var databaseDrops: Int
    var lockCycles: Int
    // Slow-loris: whether to also wait out the idle time-out (60 s).
    var slowLorisWaitsForIdleTimeout: Bool
    // Adversary: photos in the burst, and folders swapped for links (and drops rewritten in place).
    var adversaryBurst: Int
    var adversaryRounds: Int

    static let current: StressProfile = {
        let environment = ProcessInfo.processInfo.environment
        let long = environment["UTENSIL_STRESS"] == "long"
        let seed = environment["UTENSIL_STRESS_SEED"].flatMap(UInt64.init) ?? 20_261_122
        if long {
            return StressProfile(
                name: "long", seed: seed, burstSmall: 10_000, burstLarge: 1_000,
                kills: 60, killSmall: 2_000, killLarge: 200, killJunk: 20,
                diskFullDrops: 300, diskFullRetryRounds: 3, databaseDrops: 30, lockCycles: 3,
                slowLorisWaitsForIdleTimeout: true, adversaryBurst: 1_000, adversaryRounds: 100)
        }
        return StressProfile(
            name: "short", seed: seed, burstSmall: 1_000, burstLarge: 50,
            kills: 10, killSmall: 300, killLarge: 20, killJunk: 5,
            diskFullDrops: 40, diskFullRetryRounds: 1, databaseDrops: 10, lockCycles: 1,
            slowLorisWaitsForIdleTimeout: false, adversaryBurst: 100, adversaryRounds: 10)
    }()

    var description: String { "stress profile \(name), seed \(seed) (replay with UTENSIL_STRESS_SEED=\(seed))" }

    /// Prints a line the run's log keeps (`make stress` output, CI logs).
    static func report(_ scenario: String, _ line: String) {
        print("[stress \(current.name)] \(scenario): \(line)")
    }
}

/// The corpus shared by all scenarios (made once, cached).
let stressCorpus = StressCorpus()

/// Helpers the scenarios share.
enum Stress {
    static func socket(_ world: TestWorld) -> String { world.root.appendingPathComponent("control.sock").path }

    /// Hard-links photos into `folder` (instant, no copy) under their drop names.
    static func stage(_ photos: [StressCorpus.Photo], in folder: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try photos.map { photo in
            let target = folder.appendingPathComponent(photo.dropName)
            guard link(photo.url.path, target.path) == 0 else {
                throw TestFailure("link \(photo.url.path): \(String(cString: strerror(errno)))")
            }
            return target
        }
    }

    /// Moves staged files into the inbox one `rename` each, as fast as possible.
    static func moveIn(_ files: [URL], to inbox: URL) throws {
        for file in files {
            guard rename(file.path, inbox.appendingPathComponent(file.lastPathComponent).path) == 0 else {
                throw TestFailure("rename \(file.path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Copies files into the inbox with the real `cp` (one process for all of them).
    static func copyIn(_ files: [URL], to inbox: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xargs")
        process.arguments = ["-0", "cp", "-t", inbox.path, "--"]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        var list = Data()
        for file in files { list.append(contentsOf: Array(file.path.utf8) + [0]) }
        input.fileHandleForWriting.write(list)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("cp into the inbox failed (\(process.terminationStatus))") }
    }

    /// Files (not folders) left in the inbox.
    static func inboxCount(_ world: TestWorld) -> Int {
        world.files(in: world.inbox).count
    }

    /// Rejected files (sidecars not counted).
    static func rejectedCount(_ world: TestWorld) -> Int {
        world.files(in: world.rejected).filter { !$0.hasSuffix(".error.json") && !$0.hasPrefix(".tmp-") }.count
    }

    /// Polls (with a deadline) until `utensils` rows and `rejections` rejected files exist and
    /// the inbox is empty.
    static func waitUntilSettled(
        _ world: TestWorld, utensils: Int, rejections: Int, seconds: Double, daemon: RunningDaemon
    ) throws {
        let deadline = Date().addingTimeInterval(seconds)
        let catalog = try SQLiteCatalog(path: world.settings().catalogPath)
        var last = (0, 0, 0)
        while true {
            let count = (try? catalog.count()) ?? -1
            last = (count, rejectedCount(world), inboxCount(world))
            if last == (utensils, rejections, 0) { return }
            guard daemon.process.isRunning else {
                throw TestFailure("utensild exited (\(daemon.process.terminationStatus)) while \(last) of \(utensils) utensils, \(rejections) rejections\n\(daemon.log.suffix(4000))")
            }
            guard Date() < deadline else {
                throw TestFailure(
                    "after \(seconds) s: \(last.0) of \(utensils) utensils, \(last.1) of \(rejections) rejections, \(last.2) still in the inbox\n\(daemon.log.suffix(4000))")
            }
            usleep(200_000)  // Polling with a deadline.
        }
    }

    /// `utensilctl status --json`, required to answer.
    static func status(_ world: TestWorld, timeout: Double = 30) throws -> [String: Any] {
        let run = try Utensilctl.run(["status", "--json"], socket: socket(world), timeout: timeout)
        guard run.status == 0, let json = run.json else {
            throw TestFailure("utensilctl status exited \(run.status): \(run.output) \(run.errors)")
        }
        return json
    }

    /// Polls `status` until its `lastError` satisfies `predicate`; returns it.
    @discardableResult
    static func waitForLastError(
        _ world: TestWorld, daemon: RunningDaemon, seconds: Double = 120, _ predicate: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var last = "nil"
        while true {
            if let error = try status(world)["lastError"] as? String {
                last = error
                if predicate(error) { return error }
            }
            guard daemon.process.isRunning else { throw TestFailure("utensild exited\n\(daemon.log.suffix(4000))") }
            guard Date() < deadline else { throw TestFailure("status never gave the expected lastError; last: \(last)") }
            usleep(200_000)  // Polling with a deadline.
        }
    }

    /// How many times the log says each drop was left in the inbox for a retry.
    static func retriesLogged(_ log: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in log.split(separator: "\n") where line.contains("in the inbox for a retry") {
            if let match = line.firstMatch(of: /(Small|Large|Junk) \d+\.jpg/) { counts[String(match.0), default: 0] += 1 }
        }
        return counts
    }

    /// Polls until the log shows every one of `names` left for a retry at least `rounds` times.
    static func waitForRetries(of names: [String], rounds: Int, daemon: RunningDaemon, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let counts = retriesLogged(daemon.log)
            let behind = names.filter { counts[$0, default: 0] < rounds }
            if behind.isEmpty { return }
            guard daemon.process.isRunning else { throw TestFailure("utensild exited\n\(daemon.log.suffix(4000))") }
            guard Date() < deadline else {
                throw TestFailure("\(behind.count) drops were not retried \(rounds) times within \(seconds) s: \(behind.prefix(5))")
            }
            usleep(200_000)  // Polling with a deadline.
        }
    }
}

/// Asks `utensilctl status` over and over on a thread of its own while a scenario runs: each
/// answer must come within a generous deadline.
final class StatusPoller: @unchecked Sendable {
    private let lock = NSLock()
    private var answers = 0
    private var slowest = 0.0
    private var failures: [String] = []
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    let socket: String
    let deadline: Double

    /// Starts polling at once.
    init(socket: String, deadline: Double = 20) {
        self.socket = socket
        self.deadline = deadline
        Thread { [self] in run() }.start()
    }

    private func run() {
        while !stopped.load(ordering: .relaxed) {
            do {
                let run = try Utensilctl.run(["status", "--json"], socket: socket, timeout: deadline)
                record(run.status == 0 ? nil : "exit \(run.status): \(run.errors)", seconds: run.seconds)
            } catch {
                record("\(error)", seconds: deadline)
            }
            usleep(250_000)  // The pace of an operator's `watch`, not a synchronisation.
        }
        done.signal()
    }

    private func record(_ failure: String?, seconds: Double) {
        lock.withLock {
            answers += failure == nil ? 1 : 0
            slowest = max(slowest, seconds)
            if let failure { failures.append(failure) }
        }
    }

    /// Stops polling; returns (answers, slowest answer in seconds, failures).
    func stop() -> (answers: Int, slowest: Double, failures: [String]) {
        stopped.store(true, ordering: .relaxed)
        done.wait()
        return lock.withLock { (answers, slowest, failures) }
    }
}
