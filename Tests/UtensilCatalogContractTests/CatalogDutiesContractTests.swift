import Foundation
import Testing
import UtensilCatalogModel

/// The rules of ``CatalogDuties`` (the lease behind "one host at a time" for the trash
/// purge), checked against every backend in ``CatalogBackends/all``.
@Suite("Catalog duties contract", .tags(.spawnsProcesses))
struct CatalogDutiesContractTests {
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_795_000_000 + seconds) }

    @Test("a duty held by one host is refused to another until its lease runs out", arguments: CatalogBackends.all)
    func oneHolderUntilTheLeaseRunsOut(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let first = opened.backend
            let second = try await opened.another()
            #expect(try await first.claimDuty("trash-purge", for: "kitchen-a", now: Self.date(0), until: Self.date(60)))
            #expect(try await !second.claimDuty("trash-purge", for: "kitchen-b", now: Self.date(10), until: Self.date(70)))
            // The holder renews its own lease.
            #expect(try await first.claimDuty("trash-purge", for: "kitchen-a", now: Self.date(50), until: Self.date(110)))
            #expect(try await !second.claimDuty("trash-purge", for: "kitchen-b", now: Self.date(100), until: Self.date(160)))
            // kitchen-a stopped renewing: once its lease ran out, kitchen-b takes the duty over.
            #expect(try await second.claimDuty("trash-purge", for: "kitchen-b", now: Self.date(111), until: Self.date(171)))
            #expect(try await !first.claimDuty("trash-purge", for: "kitchen-a", now: Self.date(120), until: Self.date(180)))
            // Another duty is held on its own.
            #expect(try await first.claimDuty("rethumb", for: "kitchen-a", now: Self.date(120), until: Self.date(180)))
        }
    }

    @Test("forgetting expired duties forgets only leases that ran out, and a forgotten duty is free", arguments: CatalogBackends.all)
    func forgettingExpiredDuties(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            #expect(try await catalog.claimDuty("drop:a", for: "kitchen-a", now: Self.date(0), until: Self.date(100)))
            #expect(try await catalog.claimDuty("drop:b", for: "kitchen-a", now: Self.date(0), until: Self.date(300)))
            #expect(try await catalog.forgetDuties(expiredBefore: Self.date(100)) == 0)
            #expect(try await catalog.forgetDuties(expiredBefore: Self.date(200)) == 1)
            // drop:b is still kitchen-a's; drop:a, forgotten, is anyone's.
            #expect(try await !catalog.claimDuty("drop:b", for: "kitchen-b", now: Self.date(200), until: Self.date(400)))
            #expect(try await catalog.claimDuty("drop:a", for: "kitchen-b", now: Self.date(50), until: Self.date(400)))
        }
    }

    @Test("of several hosts claiming at once, exactly one gets the duty", arguments: CatalogBackends.all)
    func concurrentClaimsGiveOneHolder(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            var handles: [any CatalogBackend] = [opened.backend]
            for _ in 1..<4 { handles.append(try await opened.another()) }
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, handle) in handles.enumerated() {
                    group.addTask {
                        try await handle.claimDuty("trash-purge", for: "kitchen-\(index)", now: Self.date(0), until: Self.date(60))
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }
}
