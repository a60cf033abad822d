import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// The catalog in trouble while photos arrive: another process holding SQLite's write lock for
/// longer than the daemon's busy time-out, and the database files made immutable
/// (`chattr +i`, which root cannot write through either). The drops are retried, nothing is
/// lost or rejected, the daemon stays up and says why; once the trouble ends, all are ingested.
@Suite("Stress: database trouble", .serialized, .tags(.spawnsProcesses))
struct StressDatabaseTests {
    /// Drops made while the catalog cannot be written: checked without opening the catalog.
    static let workers = 2

    static func expectAllWaiting(_ world: TestWorld, count: Int, utensilsBefore: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Stress.inboxCount(world) == count, "drops left the inbox while the catalog could not be written", sourceLocation: sourceLocation)
        #expect(Stress.rejectedCount(world) == 0, "a transient failure was taken for a rejection", sourceLocation: sourceLocation)
        // Up to one pair of files per worker belongs to an ingest waiting for its commit; the
        // invariant afterwards proves that none of them outlives a failed commit.
        let originals = world.files(in: world.originals).count
        let thumbnails = world.files(in: world.thumbnails).count
        #expect(originals <= utensilsBefore + workers, "files were left behind by failed commits: \(originals)", sourceLocation: sourceLocation)
        #expect(thumbnails <= utensilsBefore + workers, "files were left behind by failed commits: \(thumbnails)", sourceLocation: sourceLocation)
    }

    @Test func anotherProcessHoldingTheWriteLockDelaysButLosesNothing() throws {
        let profile = StressProfile.current
        print(profile)
        let photos = try stressCorpus.photos(.small, count: profile.databaseDrops * profile.lockCycles + 1)
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world, extra: ["--workers", "2"])
        let staging = world.root.appendingPathComponent("staging")
        let staged = try Stress.stage(photos, in: staging)
        try Stress.moveIn([staged[0]], to: world.inbox)
        try Stress.waitUntilSettled(world, utensils: 1, rejections: 0, seconds: 60, daemon: daemon)

        var ingested = 1
        var lastError = ""
        for cycle in 0..<profile.lockCycles {
            let wave = Array(staged[(1 + cycle * profile.databaseDrops)..<(1 + (cycle + 1) * profile.databaseDrops)])
            let lock = try SQLiteLock(path: world.settings().catalogPath)
            defer { lock.release() }
            try Stress.moveIn(wave, to: world.inbox)
            try Stress.waitForRetries(of: wave.map(\.lastPathComponent), rounds: 1, daemon: daemon, seconds: 60 + Double(wave.count) * 6)
            lastError = try Stress.waitForLastError(world, daemon: daemon) { $0.contains("locked") || $0.contains("busy") }
            #expect(daemon.process.isRunning)
            Self.expectAllWaiting(world, count: wave.count, utensilsBefore: ingested)
            lock.release()
            ingested += wave.count
            try Stress.waitUntilSettled(world, utensils: ingested, rejections: 0, seconds: 90 + Double(wave.count), daemon: daemon)
        }
        let report = try InvariantChecker(world: world).examine(
            inputHashes: photos.map(\.sha256), inbox: .mustBeEmpty, controlSocket: Stress.socket(world))
        #expect(report.census == .init(utensils: photos.count, rejections: 0, stillInInbox: 0))
        #expect(try daemon.terminate() == 0)
        StressProfile.report(
            "database locked",
            "\(profile.lockCycles) × a sqlite3 process holding BEGIN EXCLUSIVE past the 5 s busy time-out while \(profile.databaseDrops) photos arrived: "
                + "each drop retried, none rejected, no files left by failed commits, daemon up, status lastError \"\(lastError)\"; released → all \(photos.count) ingested, 0 lost")
    }

    @Test func anImmutableDatabaseDelaysButLosesNothing() throws {
        let profile = StressProfile.current
        print(profile)
        let photos = try stressCorpus.photos(.small, count: profile.databaseDrops + 1)
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world, extra: ["--workers", "2"])
        let staged = try Stress.stage(photos, in: world.root.appendingPathComponent("staging"))
        try Stress.moveIn([staged[0]], to: world.inbox)
        try Stress.waitUntilSettled(world, utensils: 1, rejections: 0, seconds: 60, daemon: daemon)

        let database = world.state.appendingPathComponent("utensils.sqlite").path
        let files = [database, database + "-wal"]
        // Undone when released — or when the test dies — so nothing undeletable stays in /tmp.
        // (On ext4, as /tmp is here: tmpfs would let writes through descriptors already open.)
        let immutable = try ImmutableFiles(files)
        defer { immutable.release() }
        let wave = Array(staged.dropFirst())
        try Stress.moveIn(wave, to: world.inbox)
        try Stress.waitForRetries(of: wave.map(\.lastPathComponent), rounds: 1, daemon: daemon, seconds: 60 + Double(wave.count) * 2)
        let lastError = try Stress.waitForLastError(world, daemon: daemon) { $0.contains("catalog") }
        #expect(daemon.process.isRunning)
        Self.expectAllWaiting(world, count: wave.count, utensilsBefore: 1)

        immutable.release()
        try Stress.waitUntilSettled(world, utensils: photos.count, rejections: 0, seconds: 90 + Double(wave.count), daemon: daemon)
        let report = try InvariantChecker(world: world).examine(
            inputHashes: photos.map(\.sha256), inbox: .mustBeEmpty, controlSocket: Stress.socket(world))
        #expect(report.census == .init(utensils: photos.count, rejections: 0, stillInInbox: 0))
        #expect(try daemon.terminate() == 0)
        StressProfile.report(
            "database read-only",
            "utensils.sqlite and its WAL made immutable (chattr +i) while \(wave.count) photos arrived: each retried, none rejected, no files left by failed commits, "
                + "daemon up, status lastError \"\(lastError)\"; made writable → all \(photos.count) ingested, 0 lost")
    }
}
