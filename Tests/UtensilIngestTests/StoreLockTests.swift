import Dispatch
import Foundation
import Synchronization
import Testing
@testable import UtensilStore
import UtensilTestSupport

/// The store's lock per utensil and its snapshot gate are shared by the doors, whose tasks
/// are suspended while they wait, and the ingest engine's threads, which take them through
/// its bridge: each keeps them apart all the same.
@Suite("The store's locks and snapshot gate")
struct StoreLockTests {
    /// A door's task waits while an engine thread holds a utensil's lock, and gets it once
    /// the thread lets go.
    @Test func aTaskWaitsForTheLockAnEngineThreadHolds() async throws {
        let lock = ChangeLock()
        let order = Order()
        let release = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (held: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                CatalogAwait.run { await lock.lock() }
                held.resume()
                release.wait()
                order.add("thread lets go")
                lock.unlock()
            }
        }
        let door = Task {
            await lock.lock()
            order.add("door")
            lock.unlock()
        }
        try await Self.waitUntil("the door waits for the lock") { lock.waitingCount == 1 }
        #expect(order.lines.isEmpty)
        release.signal()
        await door.value
        #expect(order.lines == ["thread lets go", "door"])
        CatalogAwait.run { await lock.lock() }  // Free again: an engine thread takes it at once.
        lock.unlock()
    }

    /// A backup closing the gate waits for an engine thread's commit passing it, and keeps a
    /// door's delete that comes meanwhile out until its snapshot is taken.
    @Test func aBackupWaitsForTheOperationsPassingAndKeepsNewOnesOut() async throws {
        let gate = SnapshotGate()
        let order = Order()
        let release = DispatchSemaphore(value: 0)
        let commit = Task {
            await withCheckedContinuation { (passing: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    gate.passing {
                        passing.resume()
                        release.wait()
                        order.add("commit")
                    }
                }
            }
        }
        await commit.value
        let backup = Task {
            await gate.closed { order.add("snapshot") }
        }
        try await Self.waitUntil("the backup waits to close the gate") { gate.waitingCount.closers == 1 }
        let delete = Task {
            await gate.passing { () async in order.add("delete") }
        }
        try await Self.waitUntil("the delete waits behind the backup") { gate.waitingCount.passers == 1 }
        #expect(order.lines.isEmpty)
        release.signal()
        await backup.value
        await delete.value
        #expect(order.lines == ["commit", "snapshot", "delete"])
        #expect(gate.waitingCount.closers == 0 && gate.waitingCount.passers == 0)
    }

    /// What happened, in order, from any thread.
    final class Order: Sendable {
        private let recorded = Mutex<[String]>([])
        func add(_ line: String) { recorded.withLock { $0.append(line) } }
        var lines: [String] { recorded.withLock { $0 } }
    }

    /// Polls `condition` until it holds, for at most ten seconds.
    static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("Timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
