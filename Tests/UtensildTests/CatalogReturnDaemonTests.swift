import Foundation
import Testing
import UtensilTestSupport

/// The real utensild on its SQLite catalog while another process holds the catalog's write
/// lock (the sqlite3 CLI in `BEGIN EXCLUSIVE`, past the daemon's 5 s busy time-out): the
/// drops wait, and are retried as soon as the lock is released, not when their back-off runs
/// out. The daemon runs with every retry back-off stretched to ten minutes (the debug
/// build's `UTENSIL_FAULT_RETRY_AFTER`), so a drop ingested within two minutes of the
/// release was woken by the catalog's return.
@Suite(.tags(.spawnsProcesses)) struct CatalogReturnDaemonTests {
    static let retryAfterSeconds = 600
    /// Far below ``retryAfterSeconds``, far above what the return takes (a few seconds here).
    static let resumedWithinSeconds: Double = 120

    @Test func dropsWaitingForABusyCatalogAreRetriedAsSoonAsItIsFree() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(
            world: world, environment: ["UTENSIL_FAULT_RETRY_AFTER": String(Self.retryAfterSeconds)])
        let photos = try TestImages.make((0..<3).map { TestImages.jpeg(world.root.path + "/photo-\($0).jpg", seed: 80 + $0) })
        try world.drop("Ladle.jpg", photos[0])
        try daemon.waitForUtensils(1)

        let lock = try SQLiteLock(path: world.settings().catalogPath)
        defer { lock.release() }
        try world.drop("Whisk.jpg", photos[1])
        try world.drop("Tongs.jpg", photos[2])
        // Both have been tried and wait for a retry, ten minutes away.
        try daemon.notifications.wait(for: { $0.contains("2 waiting for a retry") }, seconds: 120)
        #expect(world.files(in: world.inbox).sorted() == ["Tongs.jpg", "Whisk.jpg"], "\(daemon.log)")
        #expect(world.files(in: world.rejected).isEmpty, "\(daemon.log)")

        lock.release()
        try daemon.waitForUtensils(3, seconds: Self.resumedWithinSeconds)
        try Poll.until(seconds: 30, "the inbox empty", detail: { daemon.log }) { world.files(in: world.inbox).isEmpty }
        #expect(world.files(in: world.rejected).isEmpty, "\(daemon.log)")
        let log = daemon.log
        #expect(log.components(separatedBy: "The catalog is unavailable").count == 2, "\(log)")
        #expect(log.components(separatedBy: "The catalog answers again").count == 2, "\(log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }
}
