import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// The state folder, and the inbox with its rejected folder, on small tmpfs file systems
/// (unmounted when the test ends or dies), filled to the last byte: ingests and rejections
/// fail as transient, the drops stay in the inbox, the daemon stays up and says why; once
/// the space is freed, the retry back-off ingests everything.
@Suite("Stress: disk full", .serialized, .tags(.spawnsProcesses))
struct StressDiskFullTests {
    @Test func aFullDiskLeavesDropsInTheInboxUntilSpaceIsFreed() throws {
        let profile = StressProfile.current
        print(profile)
        let photos = try stressCorpus.photos(.small, count: profile.diskFullDrops)
        let world = try TestWorld()
        defer { world.remove() }
        // One tmpfs for the whole world (inbox, rejected, sockets), another for the state folder.
        let mounts = try TmpfsMounts([(world.root, 32 << 20), (world.state, 64 << 20)])
        defer { mounts.release() }
        try FileManager.default.createDirectory(at: world.inbox, withIntermediateDirectories: true)
        let staging = world.root.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try Stress.copyIn(photos.map(\.url), to: staging)
        let junk = Data("this is no photo, and rejected/ is full".utf8)
        try junk.write(to: staging.appendingPathComponent("Junk 1.jpg"))
        let daemon = try RunningDaemon(world: world, extra: ["--workers", "2"])
        defer { daemon.kill() }

        // A first photo goes through while there is space: the catalog and its WAL exist.
        try Stress.moveIn([staging.appendingPathComponent(photos[0].dropName)], to: world.inbox)
        try Stress.waitUntilSettled(world, utensils: 1, rejections: 0, seconds: 60, daemon: daemon)

        // Fill both file systems, then move the photos and a broken file into the inbox (a
        // rename needs no space).
        let fillers = [try TmpfsMounts.fill(world.state), try TmpfsMounts.fill(world.root)]
        let rest = Array(photos.dropFirst())
        let names = rest.map(\.dropName) + ["Junk 1.jpg"]
        try Stress.moveIn(names.map { staging.appendingPathComponent($0) }, to: world.inbox)
        try Stress.waitForRetries(of: names, rounds: profile.diskFullRetryRounds, daemon: daemon, seconds: 60 + 40 * Double(profile.diskFullRetryRounds))

        // While full: every drop is still in the inbox, nothing was rejected, the daemon is up
        // and says why, in `status` and in its log.
        let lastError = try Stress.waitForLastError(world, daemon: daemon) { $0.contains("No space left on device") }
        #expect(daemon.process.isRunning)
        #expect(daemon.log.contains("No space left on device"))
        let during = try InvariantChecker(world: world).examine(
            inputHashes: photos.map(\.sha256) + [sha256Hex(junk)], inbox: .mayHoldDrops)
        #expect(during.census == .init(utensils: 1, rejections: 0, stillInInbox: names.count))

        // Space comes back: everything is ingested (or rejected) by the back-off, unprompted.
        let freed = Date()
        for filler in fillers { try FileManager.default.removeItem(at: filler) }
        let backoffCeiling = 5.0 * Double(1 << profile.diskFullRetryRounds) + 60
        try Stress.waitUntilSettled(world, utensils: photos.count, rejections: 1, seconds: backoffCeiling + Double(photos.count) * 0.5, daemon: daemon)
        let recovery = Date().timeIntervalSince(freed)
        let report = try InvariantChecker(world: world).examine(
            inputHashes: photos.map(\.sha256) + [sha256Hex(junk)], inbox: .mustBeEmpty, controlSocket: Stress.socket(world))
        #expect(report.census == .init(utensils: photos.count, rejections: 1, stillInInbox: 0))
        #expect(report.rejectionReasons == ["corrupt-image": 1])
        #expect(try daemon.terminate() == 0)
        StressProfile.report(
            "disk full",
            "\(names.count) drops (\(rest.count) photos + 1 broken) moved into the inbox while the state tmpfs and the inbox's tmpfs (with rejected/) were full: each left in the inbox "
                + "≥ \(profile.diskFullRetryRounds)× as transient, 0 rejected, daemon up, status lastError \"\(lastError)\"; "
                + "space freed → all \(photos.count) ingested and the broken one rejected \(Int(recovery)) s later; 0 lost")
    }
}
