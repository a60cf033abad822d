import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Thousands of real photos at once, through an inotify queue made to overflow, then large
/// photos: nothing lost, nothing twice, memory bounded, and `utensilctl status` answers
/// throughout.
@Suite("Stress: burst", .serialized, .tags(.spawnsProcesses))
struct StressBurstTests {
    /// Generous: a daemon that kept every drop's bytes would need gigabytes.
    static let peakMemoryLimitMiB = 600.0

    @Test func aBurstOfSmallThenLargePhotosIsIngestedOnceEach() throws {
        let profile = StressProfile.current
        print(profile)
        let small = try stressCorpus.photos(.small, count: profile.burstSmall)
        let large = try stressCorpus.photos(.large, count: profile.burstLarge)
        #expect(Set((small + large).map(\.sha256)).count == small.count + large.count, "the corpus has twins")
        let world = try TestWorld()
        defer { world.remove() }

        // A queue of 256 events overflows during the burst: the rescan must pick up what the
        // events lost. (Lowered only while the daemon starts: inotify reads it at inotify_init.)
        let daemon = try InotifyQueueLimit.whileLowered(to: 256) {
            try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"])
        }
        let began = Date()

        // 1. The small ones, copied in by one `cp` as fast as it goes — while the daemon is
        // stopped, so that the queue overflows for certain rather than only on a busy machine.
        let pid = daemon.process.processIdentifier
        #expect(kill(pid, SIGSTOP) == 0)
        let copied = Result { try Stress.copyIn(small.map(\.url), to: world.inbox) }
        #expect(kill(pid, SIGCONT) == 0)
        try copied.get()
        let poller = StatusPoller(socket: Stress.socket(world))
        try Stress.waitUntilSettled(world, utensils: small.count, rejections: 0, seconds: 60 + Double(small.count) * 0.2, daemon: daemon)
        let smallSeconds = Date().timeIntervalSince(began)
        let afterSmall = try ProcessMemory.of(daemon.process.processIdentifier)

        // 2. The large ones, moved in at once from a staging folder.
        let staged = try Stress.stage(large, in: world.root.appendingPathComponent("staging"))
        try Stress.moveIn(staged, to: world.inbox)
        try Stress.waitUntilSettled(
            world, utensils: small.count + large.count, rejections: 0, seconds: 60 + Double(large.count) * 1.0, daemon: daemon)
        let totalSeconds = Date().timeIntervalSince(began)
        let memory = try ProcessMemory.of(daemon.process.processIdentifier)
        let polled = poller.stop()

        #expect(daemon.log.contains("overflow"), "the inotify queue never overflowed: the scenario lost its point")
        #expect(polled.failures.isEmpty, "status failed during the burst: \(polled.failures.prefix(3))")
        #expect(polled.answers > 0)
        #expect(memory.peakResidentMiB < Self.peakMemoryLimitMiB, "utensild's memory: \(memory)")
        let report = try InvariantChecker(world: world).examine(
            inputHashes: (small + large).map(\.sha256), inbox: .mustBeEmpty, controlSocket: Stress.socket(world))
        #expect(report.census == .init(utensils: small.count + large.count, rejections: 0, stillInInbox: 0))
        #expect(try daemon.terminate() == 0)
        StressProfile.report(
            "burst",
            "\(small.count) small in \(Int(smallSeconds)) s (\(afterSmall)), then \(large.count) large, all in \(Int(totalSeconds)) s; "
                + "\(report.census.utensils) utensils, 0 lost, 0 twice; inotify overflowed; \(polled.answers) status answers, slowest \(String(format: "%.2f", polled.slowest)) s; \(memory)")
    }
}
