import Foundation
import Testing
import UtensilCatalogModel

/// The rules of ``CatalogHostRegistry`` (the heartbeats behind `utensilctl hosts`), checked
/// against every backend in ``CatalogBackends/all``: each must keep them.
@Suite("Catalog host registry contract", .tags(.spawnsProcesses))
struct CatalogHostRegistryContractTests {
    /// A date with whole milliseconds (what every backend stores exactly).
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_795_000_000 + seconds) }

    static func beat(_ name: String, seen: Double, stopped: Double? = nil, ingested: Int = 0) -> HostHeartbeat {
        HostHeartbeat(
            name: name, version: "0.1.0", startedAt: date(0), lastSeen: date(seen), stoppedAt: stopped.map(date),
            queued: 2, ingested: ingested, rejected: 1)
    }

    func hostRegistry(_ backend: any CatalogBackend) throws -> any CatalogHostRegistry { backend }

    @Test("a beat adds or replaces its own host's row only, and hosts are listed by name", arguments: CatalogBackends.all)
    func beatsReplaceTheirOwnRow(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let registry = try hostRegistry(opened.backend)
            #expect(try await registry.hosts().isEmpty)
            try await registry.beat(Self.beat("kitchen-b", seen: 10))
            try await registry.beat(Self.beat("kitchen-a", seen: 10, ingested: 3))
            try await registry.beat(Self.beat("kitchen-a", seen: 20.5, ingested: 7))
            // Another connection (as another host holds) sees both rows.
            let other = try hostRegistry(try await opened.another())
            #expect(try await other.hosts() == [Self.beat("kitchen-a", seen: 20.5, ingested: 7), Self.beat("kitchen-b", seen: 10)])
        }
    }

    @Test("a final beat keeps when the host stopped; a restart clears it", arguments: CatalogBackends.all)
    func stoppedAtIsKeptAndCleared(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let registry = try hostRegistry(opened.backend)
            try await registry.beat(Self.beat("kitchen-a", seen: 30, stopped: 30))
            #expect(try await registry.hosts() == [Self.beat("kitchen-a", seen: 30, stopped: 30)])
            try await registry.beat(Self.beat("kitchen-a", seen: 40))
            #expect(try await registry.hosts().first?.stoppedAt == nil)
        }
    }

    @Test("a beat keeps the schema its host knows, or none for an older host's", arguments: CatalogBackends.all)
    func schemaIsKeptOrUnknown(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let registry = try hostRegistry(opened.backend)
            #expect(registry.knownSchema > 0)
            var newer = Self.beat("kitchen-a", seen: 10)
            newer.schema = registry.knownSchema + 1
            try await registry.beat(newer)
            try await registry.beat(Self.beat("kitchen-b", seen: 10))
            let hosts = try await registry.hosts()
            #expect(hosts.map(\.schema) == [registry.knownSchema + 1, nil])
            #expect(hosts.first == newer)
        }
    }

    @Test("a host is up while its last beat is recent and it has not stopped")
    func upOrGone() {
        let seen = Self.beat("kitchen-a", seen: 0)
        let goneAfter = Double(HostHeartbeat.goneAfter.components.seconds)
        #expect(seen.state(at: Self.date(0)) == .up)
        #expect(seen.state(at: Self.date(goneAfter)) == .up)
        #expect(seen.state(at: Self.date(goneAfter + 1)) == .gone)
        #expect(Self.beat("kitchen-a", seen: 0, stopped: 0).state(at: Self.date(0)) == .gone)
    }
}
