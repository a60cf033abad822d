import Foundation
import Logging
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilConfig
import UtensilCore
@testable import UtensilStore
import UtensilTestSupport

/// The store's look-up of near duplicates through the fingerprints it holds: the catalog
/// answers until they are loaded, and what another host commits is found right after.
@Suite("Held fingerprints in the store", .serialized, .tags(.spawnsProcesses))
struct HeldFingerprintsTests {
    static let base = Int64(bitPattern: 0x9F3A_61C4_0B7E_D258)

    static func record(_ name: String, _ fingerprint: Int64, createdAt: Date = Date()) -> UtensilRecord {
        UtensilRecord(
            id: UUID(), name: name, nameKey: UtensilName.uniquenessKey(for: name), searchKey: UtensilName.searchKey(for: name),
            fileExtension: "jpg", createdAt: createdAt, width: 10, height: 10, bytes: 1, sha256: name, sourceKey: nil, nameClaim: nil,
            contentClaim: nil, fingerprint: fingerprint)
    }

    /// Runs blocking store calls on a thread of their own, as the ingest engine does.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    @Test("a look-up before the load asks the catalog; after it, one by another handle is found")
    func beforeAndAfterTheLoad() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let settings = world.settings()
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let store = UtensilStore(settings: settings, catalog: catalog, logger: TestWorld.quietLogger, faults: FaultInjection())
        let spoon = Self.record("Spoon", Self.base)
        #expect(try catalog.insert(batch: [spoon]).allSatisfy { $0 == nil })

        let beforeLoad = try await Self.onThread { try store.nearDuplicate(of: Self.base ^ 0b1011, excluding: nil) }
        #expect(beforeLoad?.id == spoon.id)
        #expect(!store.heldFingerprints.isLoaded, "the catalog answered: nothing was loaded")
        #expect(try await Self.onThread { try store.nearDuplicate(of: Self.base, excluding: spoon.id) } == nil)

        await store.holdFingerprints().value
        #expect(store.heldFingerprints.isLoaded)
        #expect(store.heldFingerprints.memory.count == 1)
        // Committed through another handle on the same file, as another process would.
        let ladle = Self.record("Ladle", ~Self.base)
        #expect(try SQLiteCatalog(path: settings.catalogPath).insert(batch: [ladle]).allSatisfy { $0 == nil })
        let held = await store.heldFingerprints.lookalikes(of: ~Self.base ^ 0b110, within: 12, limit: 2, in: catalog)
        #expect(held?.map(\.utensil.id) == [ladle.id])
        #expect(try await Self.onThread { try store.nearDuplicate(of: Self.base ^ 0b1011, excluding: nil) }?.id == spoon.id)

        // One created long ago and in the trash at the load is held once this store restores it.
        let fork = Self.record("Fork", 0x0F0F_0F0F_0F0F_0F0F, createdAt: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(try catalog.insert(batch: [fork]).allSatisfy { $0 == nil })
        _ = try catalog.trash(id: fork.id, at: Date())
        let reloaded = UtensilStore(settings: settings, catalog: catalog, logger: TestWorld.quietLogger, faults: FaultInjection())
        await reloaded.holdFingerprints().value
        #expect(reloaded.heldFingerprints.memory.count == 2)
        _ = try await reloaded.restore(id: fork.id, as: nil)
        let restored = await reloaded.heldFingerprints.lookalikes(of: fork.fingerprint!, within: 12, limit: 2, in: catalog)
        #expect(restored?.map(\.utensil.id) == [fork.id])
    }

    @Test("a copy committed through one store is found by another's held look-up over one PostgreSQL")
    func twoHostsOverPostgres() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let logger = Logger(label: "held-fingerprints-test") { _ in SwiftLogNoOpLogHandler() }
        let postgres = PostgresCatalogSettings(
            url: PostgresURL(user: server.role, server: .tcp(host: "127.0.0.1"), port: server.port, database: server.database),
            password: server.password)
        _ = try await PostgresMigrator.migrate(settings: postgres, logger: logger)
        let pools = [PostgresPool(settings: postgres, logger: logger), PostgresPool(settings: postgres, logger: logger)]
        let worlds = [try TestWorld(), try TestWorld()]
        defer { worlds.forEach { $0.remove() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pool in pools { group.addTask { await pool.run() } }
            defer { group.cancelAll() }
            let stores = zip(worlds, pools).map { world, pool in
                UtensilStore(
                    settings: world.settings(), catalog: PostgresCatalog(pool: pool, snapshotWriter: SQLiteSnapshotWriter(), logger: logger),
                    logger: TestWorld.quietLogger, faults: FaultInjection())
            }
            let (storeA, storeB) = (stores[0], stores[1])
            for store in stores { _ = try await Self.onThread { try store.reconcile() } }
            await storeB.holdFingerprints().value
            #expect(storeB.heldFingerprints.isLoaded)
            #expect(storeB.heldFingerprints.memory.count == 0)

            let whisk = Self.record("Whisk", Self.base)
            let results = try await Self.onThread {
                let pending = try storeA.write(
                    original: [1, 2, 3], thumbnail: [4], preview: [5], of: whisk, replacing: nil, claims: Claims(name: true, content: true))
                return storeA.commit([pending])
            }
            guard case .committed = results[0] else { throw TestFailure("Whisk was not committed: \(results[0])") }

            let catalogB = storeB.catalog
            let held = await storeB.heldFingerprints.lookalikes(
                of: Self.base ^ 0b1_0001, within: 12, limit: 2, in: catalogB)
            #expect(held?.map(\.utensil.id) == [whisk.id], "store B topped up what store A committed")
            #expect(try await Self.onThread { try storeB.nearDuplicate(of: Self.base ^ 0b1_0001, excluding: nil) }?.id == whisk.id)
        }
    }
}
