import Foundation
import Testing
import UtensilCatalogModel
import UtensilCore
@testable import UtensilDaemon
@testable import UtensilIngest
import UtensilStorage
import UtensilStore
@testable import UtensilWatch

/// The scheduler's bookkeeping with real files: one entry per (device, inode), and a file
/// that takes over an inode while its previous owner is being ingested is not forgotten.
@Suite("Drop scheduler")
struct DropSchedulerTests {
    private let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("scheduler-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    private func drop(_ name: String) throws -> Drop {
        let path = RawPath(folder.appendingPathComponent(name).path)
        return Drop(path: path, inboxPath: Array(name.utf8), status: try FileOps.lstat(path))
    }

    private func write(_ name: String) throws {
        try Data("photo".utf8).write(to: folder.appendingPathComponent(name))
    }

    /// Settles at once and hands out the next job; after 10 s without one the scheduler is
    /// stopped, which makes `take` return nil.
    private func nextJob(_ scheduler: DropScheduler) async throws -> DropScheduler.Job {
        await scheduler.promoteDue()
        let deadline = Task {
            try await Task.sleep(for: .seconds(10))
            await scheduler.stop()
        }
        defer { deadline.cancel() }
        let work = try #require(await scheduler.take(), "the scheduler handed out nothing within 10 s")
        guard case .ingest(let job) = work else { throw SchedulerTestError.notADrop(work) }
        return job
    }

    private enum SchedulerTestError: Error {
        case notADrop(DropScheduler.Work)
    }

    @Test func readyDropsGoBeforeThumbnailsToMakeAgain() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0)
        let ids = [UUID(), UUID()]
        #expect(await scheduler.queueRethumbs(ids, backlog: 10))
        try write("Spoon.jpg")
        await scheduler.submit(try drop("Spoon.jpg"))
        let first = try await nextJob(scheduler)
        #expect(first.drop.fileName == Array("Spoon.jpg".utf8))
        var rethumbs: [UUID] = []
        for _ in ids {
            if case .rethumb(let id) = try #require(await scheduler.take()) { rethumbs.append(id) }
        }
        #expect(rethumbs == ids)
    }

    /// The moment the daemon gives a burst's freed memory back: no drop in flight, no thumbnail
    /// waiting to be made again.
    @Test func workersAreIdleOnlyOnceNothingIsInFlightOrQueuedToRethumb() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0)
        #expect(await scheduler.workersAreIdle)
        try write("Spoon.jpg")
        await scheduler.submit(try drop("Spoon.jpg"))
        let job = try await nextJob(scheduler)
        #expect(await !scheduler.workersAreIdle, "a drop is in flight")
        await scheduler.finish(job, .vanished)
        #expect(await scheduler.workersAreIdle)
        #expect(await scheduler.queueRethumbs([UUID()], backlog: 10))
        #expect(await !scheduler.workersAreIdle, "a thumbnail waits to be made again")
        _ = try #require(await scheduler.take())
        #expect(await scheduler.workersAreIdle)
    }

    @Test func aRethumbFeederWaitsUntilItsBacklogShrinks() async throws {
        let scheduler = DropScheduler(settleSeconds: 0)
        let fed = Task { await scheduler.queueRethumbs([UUID(), UUID(), UUID()], backlog: 2) }
        // Two taken leave one waiting, below the backlog: the feeder returns true.
        for _ in 0..<2 {
            guard case .rethumb = try #require(await scheduler.take()) else {
                Issue.record("a drop was handed out where only thumbnails wait")
                return
            }
        }
        #expect(await fed.value)
    }

    @Test func aFileSeenOnTheSameInodeDuringAnIngestIsScheduledAfterIt() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0)
        try write("Spoon.jpg")
        await scheduler.submit(try drop("Spoon.jpg"))
        let first = try await nextJob(scheduler)
        #expect(first.drop.inboxPath == Array("Spoon.jpg".utf8))

        // While Spoon.jpg is in flight, Ladle.jpg appears on the same inode (a hard link
        // stands in for the inode reuse that follows the ingest's unlink).
        try FileManager.default.linkItem(
            at: folder.appendingPathComponent("Spoon.jpg"), to: folder.appendingPathComponent("Ladle.jpg"))
        await scheduler.submit(try drop("Ladle.jpg"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Spoon.jpg"))
        await scheduler.finish(first, .vanished)

        let second = try await nextJob(scheduler)
        #expect(second.drop.inboxPath == Array("Ladle.jpg".utf8))
        await scheduler.stop()
    }

    @Test func aRenamedWaitingDropIsLookedForUnderItsNewName() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0)
        try write("Whisk.jpg")
        await scheduler.submit(try drop("Whisk.jpg"))
        try FileManager.default.moveItem(
            at: folder.appendingPathComponent("Whisk.jpg"), to: folder.appendingPathComponent("Balloon whisk.jpg"))
        await scheduler.submit(try drop("Balloon whisk.jpg"))

        let job = try await nextJob(scheduler)
        #expect(job.drop.inboxPath == Array("Balloon whisk.jpg".utf8))
        await scheduler.stop()
    }

    @Test func aDropHeldOpenWaitsForItsCloseUpToTheNeverSettledLimit() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let writers = OpenWriters()
        let scheduler = DropScheduler(settleSeconds: 0, neverSettledAfter: .seconds(3), writers: writers)
        for name in ["Closed.jpg", "Never closed.jpg"] {
            try write(name)
            _ = writers.update { $0.note(UInt32(bitPattern: IN_MODIFY), path: Array(name.utf8)) }
            await scheduler.submit(try drop(name))
        }
        await scheduler.promoteDue()
        #expect(await scheduler.counters.heldOpen == 2)

        // One writer closes: that drop is looked at again at once, and settles.
        _ = writers.update { $0.note(UInt32(bitPattern: IN_CLOSE_WRITE), path: Array("Closed.jpg".utf8)) }
        await scheduler.submit(try drop("Closed.jpg"))
        let closed = try await nextJob(scheduler)
        #expect(closed.drop.inboxPath == Array("Closed.jpg".utf8) && !closed.neverSettled)

        // The other is due again only at its never-settled deadline.
        let due = try #require(await scheduler.earliestDue())
        #expect(due - ContinuousClock.now > .seconds(1))
        try await Task.sleep(until: due, clock: .continuous)
        let never = try await nextJob(scheduler)
        #expect(never.drop.inboxPath == Array("Never closed.jpg".utf8) && never.neverSettled)
        await scheduler.stop()
    }

    @Test func aDropStillThereAfterItsIngestIsLookedAtAgain() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0)
        try write("Spoon.jpg")
        await scheduler.submit(try drop("Spoon.jpg"))
        let job = try await nextJob(scheduler)
        // The engine committed what it read but left the drop: it was rewritten meanwhile.
        try Data("another photo".utf8).write(to: folder.appendingPathComponent("Spoon.jpg"))
        let record = UtensilRecord(
            id: UUID(), name: "Spoon", nameKey: "spoon", searchKey: "spoon", fileExtension: "jpg", createdAt: Date(),
            width: 1, height: 1, bytes: 5, sha256: "0", sourceKey: nil, nameClaim: nil, contentClaim: nil)
        await scheduler.finish(job, .ingested(record))

        let again = try await nextJob(scheduler)
        #expect(again.drop.inboxPath == Array("Spoon.jpg".utf8))
        #expect(again.drop.status.size == "another photo".utf8.count)
        await scheduler.stop()
    }

    @Test func twoNamesOfOneFileEachGetATurn() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0)
        try write("Spoon.jpg")
        try FileManager.default.linkItem(
            at: folder.appendingPathComponent("Spoon.jpg"), to: folder.appendingPathComponent("Spoon link.jpg"))
        await scheduler.submit(try drop("Spoon.jpg"))
        await scheduler.submit(try drop("Spoon link.jpg"))  // A hard link, not a rename.
        let first = try await nextJob(scheduler)
        #expect(first.drop.inboxPath == Array("Spoon.jpg".utf8))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Spoon.jpg"))
        await scheduler.finish(first, .vanished)

        let second = try await nextJob(scheduler)
        #expect(second.drop.inboxPath == Array("Spoon link.jpg".utf8))
        await scheduler.stop()
    }

    /// A drop left because the catalog could not answer is retried as soon as the catalog
    /// answers again, however long its back-off (an hour here); one left for another reason (a
    /// full disk) keeps its back-off.
    @Test func dropsWaitingForTheCatalogAreRetriedAtOnceWhenItAnswers() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0, retryDelay: { _ in .seconds(3600) })
        try write("Spoon.jpg")
        try write("Ladle.jpg")
        await scheduler.submit(try drop("Spoon.jpg"))
        await scheduler.submit(try drop("Ladle.jpg"))
        let jobs = [try await nextJob(scheduler), try await nextJob(scheduler)]
        let spoon = try #require(jobs.first { $0.drop.inboxPath == Array("Spoon.jpg".utf8) })
        let ladle = try #require(jobs.first { $0.drop.inboxPath == Array("Ladle.jpg".utf8) })
        #expect(!(await scheduler.dropsWait(for: .catalog)))

        await scheduler.finish(spoon, .retryLater(TransientFailure(.catalogUnavailable, "the catalog is unavailable")))
        await scheduler.finish(ladle, .retryLater(TransientFailure(.diskFull, "no space left on the device")))
        #expect(await scheduler.dropsWait(for: .catalog))
        #expect(await scheduler.waitForWaiters(.catalog))
        await scheduler.promoteDue()
        #expect(await scheduler.counters.waitingForRetry == 2, "both wait out their back-off")
        #expect(await scheduler.counters.waitingForCatalog == 1, "only the spoon waits for the catalog")
        #expect(await scheduler.counters.waitingForStorage == 0)

        #expect(await scheduler.answers(.catalog) == 1)
        let retried = try await nextJob(scheduler)
        #expect(retried.drop.inboxPath == Array("Spoon.jpg".utf8))
        #expect(await scheduler.counters.waitingForRetry == 1, "the drop left for a full disk still waits")
        #expect(await scheduler.counters.waitingForCatalog == 0)
        #expect(await scheduler.oldestInFlightStart() != nil, "the spoon is in flight again")
        #expect(!(await scheduler.dropsWait(for: .catalog)))
        #expect(await scheduler.answers(.catalog) == 0, "nothing else waited for the catalog")
        await scheduler.stop()
    }

    /// The watcher of a cause's return (the catalog's, the storage's) sleeps until a drop waits
    /// for that cause, and is let go when the scheduler stops; the other cause's return leaves
    /// that drop alone, its own has it retried.
    @Test(arguments: WaitCause.allCases)
    func aWatcherWakesForItsCauseAloneAndEndsWithTheScheduler(_ cause: WaitCause) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0, retryDelay: { _ in .seconds(3600) })
        let other = try #require(WaitCause.allCases.first { $0 != cause })
        let kind: TransientFailure.Kind = cause == .catalog ? .catalogUnavailable : .storageUnavailable
        try write("Spoon.jpg")
        await scheduler.submit(try drop("Spoon.jpg"))
        let job = try await nextJob(scheduler)
        async let woken = scheduler.waitForWaiters(cause)
        await scheduler.finish(job, .retryLater(TransientFailure(kind, "it does not answer")))
        #expect(await woken)
        #expect(!(await scheduler.dropsWait(for: other)))
        #expect(await scheduler.answers(other) == 0)
        #expect(await scheduler.answers(cause) == 1)
        #expect(try await nextJob(scheduler).drop.inboxPath == Array("Spoon.jpg".utf8))

        await scheduler.stop()
        #expect(!(await scheduler.waitForWaiters(cause)))
    }

    /// A drop woken early that fails for the catalog again waits out its back-off: a catalog
    /// that seems to answer but fails every drop does not have them retried once a second.
    @Test func aDropWokenEarlyThatFailsAgainWaitsOutItsBackOff() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let scheduler = DropScheduler(settleSeconds: 0, retryDelay: { _ in .seconds(3600) })
        try write("Spoon.jpg")
        await scheduler.submit(try drop("Spoon.jpg"))
        let unavailable = IngestOutcome.retryLater(TransientFailure(.catalogUnavailable, "the catalog is unavailable"))
        await scheduler.finish(try await nextJob(scheduler), unavailable)
        #expect(await scheduler.answers(.catalog) == 1)
        await scheduler.finish(try await nextJob(scheduler), unavailable)
        #expect(!(await scheduler.dropsWait(for: .catalog)), "it waits out its back-off")
        #expect(await scheduler.answers(.catalog) == 0)
        #expect(await scheduler.counters.waitingForRetry == 1)
        await scheduler.stop()
    }
}
