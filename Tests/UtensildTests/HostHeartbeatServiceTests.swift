import Foundation
import ServiceLifecycle
import Synchronization
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilTestSupport
@testable import UtensilDaemon

/// When a host writes its heartbeat into a real SQLite catalog: at start and at stop always,
/// and in between only on a catalog other hosts share.
@Suite struct HostHeartbeatServiceTests {
    /// The real catalog's host registry, counting the beats written through it.
    final class CountingRegistry: CatalogHostRegistry {
        let catalog: SQLiteCatalog
        let beats = Mutex<[HostHeartbeat]>([])
        init(_ catalog: SQLiteCatalog) { self.catalog = catalog }

        var knownSchema: Int { catalog.knownSchema }
        func beat(_ heartbeat: HostHeartbeat) async throws(CatalogError) {
            try catalog.beat(heartbeat)
            beats.withLock { $0.append(heartbeat) }
        }
        func hosts() async throws(CatalogError) -> [HostHeartbeat] { try catalog.hosts() }
        var count: Int { beats.withLock { $0.count } }
    }

    /// Runs the service in a service group until `count` beats are written (polling with a
    /// deadline), shuts the group down gracefully, and returns every beat written.
    private func run(every interval: Duration?, until count: Int) async throws -> [HostHeartbeat] {
        let world = try TestWorld()
        defer { world.remove() }
        let registry = CountingRegistry(try SQLiteCatalog(path: world.state.appendingPathComponent("hosts.sqlite").path))
        let heart = HostHeart(
            name: "kitchen-a", startedAt: Date(), registry: registry, scheduler: DropScheduler(settleSeconds: 0))
        let service = HostHeartbeatService(heart: heart, interval: interval, logger: TestWorld.quietLogger)
        let group = ServiceGroup(configuration: .init(services: [service], logger: TestWorld.quietLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let deadline = ContinuousClock.now + .seconds(30)
            while registry.count < count {
                guard ContinuousClock.now < deadline else {
                    throw TestFailure("\(registry.count) beats within 30 s, expected \(count)")
                }
                try await Task.sleep(for: .milliseconds(5))  // Polling with a deadline.
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let beats = registry.beats.withLock { $0 }
        let rows = try await registry.hosts()
        #expect(rows.map(\.name) == ["kitchen-a"])
        #expect(rows.first?.stoppedAt != nil, "the last beat says the host stopped")
        return beats
    }

    @Test func onACatalogNoOtherHostReadsTheHostBeatsAtStartAndAtStopOnly() async throws {
        #expect(HostHeartbeatService.interval(sharesCatalog: false) == nil)
        let beats = try await run(every: nil, until: 1)
        #expect(beats.map { $0.stoppedAt != nil } == [false, true])
    }

    @Test func onASharedCatalogTheHostBeatsEveryIntervalWhileItRuns() async throws {
        #expect(HostHeartbeatService.interval(sharesCatalog: true) == HostHeartbeat.interval)
        let beats = try await run(every: .milliseconds(10), until: 4)
        #expect(beats.count >= 5)
        #expect(beats.dropLast().allSatisfy { $0.stoppedAt == nil })
        #expect(beats.last?.stoppedAt != nil)
        #expect(zip(beats, beats.dropFirst()).allSatisfy { $0.lastSeen <= $1.lastSeen })
    }
}
