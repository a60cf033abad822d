import Foundation
import Glibc
import Synchronization
import Testing
import UtensilTestSupport

/// `kill -9` at random moments during a burst, restarting each time — sometimes killing the
/// restart itself before it is ready (during reconciliation or the start-up scan). Seeded:
/// the seed is printed and `UTENSIL_STRESS_SEED` replays it.
@Suite("Stress: kill -9 loop", .serialized, .tags(.spawnsProcesses))
struct StressKillLoopTests {
    @Test func killedAgainAndAgainDuringABurstLosesNothing() throws {
        let profile = StressProfile.current
        print(profile)
        var random = SeededGenerator(seed: profile.seed)
        let small = try stressCorpus.photos(.small, count: profile.killSmall)
        let large = try stressCorpus.photos(.large, count: profile.killLarge)
        let world = try TestWorld()
        defer { world.remove() }

        // Good photos and broken files (the rejection path is killed too), staged, then fed
        // into the inbox in waves while the daemon is being killed.
        let staging = world.root.appendingPathComponent("staging")
        var files = try Stress.stage(small + large, in: staging)
        var hashes = (small + large).map(\.sha256)
        for index in 0..<profile.killJunk {
            let junk = Data("not a photo at all, number \(index)".utf8)
            let url = staging.appendingPathComponent(String(format: "Junk %03d.jpg", index))
            try junk.write(to: url)
            files.append(url)
            hashes.append(sha256Hex(junk))
        }
        files.shuffle(using: &random)
        let feeder = WaveFeeder(files: files, inbox: world.inbox, perWave: max(1, files.count / (profile.kills * 5)))

        var daemon = try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"])
        var kills = 0
        var killsBeforeReady = 0
        var killsWithWork = 0
        for _ in 0..<profile.kills {
            // The fault's timing, seeded — not a synchronisation.
            usleep(useconds_t(Double.random(in: 0.05...1.2, using: &random) * 1_000_000))
            if Stress.inboxCount(world) > 0 || !feeder.isDone { killsWithWork += 1 }
            #expect(daemon.process.isRunning, "utensild died on its own\n\(daemon.log.suffix(3000))")
            daemon.kill()
            kills += 1
            if Int.random(in: 0..<4, using: &random) == 0 {
                let early = try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"], waitForReady: false)
                usleep(useconds_t(Double.random(in: 0.0...0.3, using: &random) * 1_000_000))
                early.kill()
                kills += 1
                killsBeforeReady += 1
            }
            daemon = try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"])
        }
        feeder.finish()
        try Stress.waitUntilSettled(
            world, utensils: small.count + large.count, rejections: profile.killJunk,
            seconds: 120 + Double(files.count) * 0.3, daemon: daemon)
        let report = try InvariantChecker(world: world).examine(
            inputHashes: hashes, inbox: .mustBeEmpty, controlSocket: Stress.socket(world))
        #expect(report.census == .init(utensils: small.count + large.count, rejections: profile.killJunk, stillInInbox: 0))
        #expect(report.rejectionReasons["decoder-crash"] == nil, "a kill -9 was taken for a decoder crash: \(report.rejectionReasons)")
        #expect(report.rejectionReasons == ["corrupt-image": profile.killJunk], "\(report.rejectionReasons)")
        #expect(kills >= profile.kills)
        #expect(try daemon.terminate() == 0)
        StressProfile.report(
            "kill -9 loop",
            "seed \(profile.seed): \(kills) SIGKILLs (\(killsBeforeReady) before READY=1, \(killsWithWork) with drops pending) during a burst of \(files.count) drops "
                + "(\(small.count) small, \(large.count) large, \(profile.killJunk) broken); \(report.census.utensils) utensils, \(report.census.rejections) rejections, none decoder-crash, 0 lost, 0 twice")
    }
}

/// Moves staged files into the inbox in waves on a thread of its own, until all are in.
final class WaveFeeder: @unchecked Sendable {
    private let finished = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(files: [URL], inbox: URL, perWave: Int) {
        Thread { [self] in
            var remaining = files[...]
            while !remaining.isEmpty {
                let wave = remaining.prefix(perWave)
                remaining = remaining.dropFirst(perWave)
                try? Stress.moveIn(Array(wave), to: inbox)
                usleep(100_000)  // The pace of people dropping photos, not a synchronisation.
            }
            finished.store(true, ordering: .releasing)
            done.signal()
        }.start()
    }

    var isDone: Bool { finished.load(ordering: .acquiring) }

    /// Waits until every file has been moved in.
    func finish() {
        done.wait()
        done.signal()
    }
}
