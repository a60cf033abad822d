import Testing
import UtensilTestSupport

/// The whole rendition storage contract on every storage that runs in-process
/// (``StorageBackends/inProcess``): `make check` runs it.
@Suite("The rendition storage contract, in-process")
struct LocalStorageContractTests {
    @Test("the storage keeps the contract", arguments: StorageBackends.inProcess, RenditionStorageContract.clauses)
    func contract(_ backend: StorageUnderTest, _ clause: StorageContractClause) async throws {
        try await backend.check(clause.check)
    }
}

/// The whole rendition storage contract on every storage on a server of its own
/// (``ServerStorageBackends/all``): `make test` runs it.
@Suite("The rendition storage contract, on servers", .tags(.spawnsProcesses))
struct S3StorageContractTests {
    @Test("the storage keeps the contract", arguments: ServerStorageBackends.all, RenditionStorageContract.clauses)
    func contract(_ backend: StorageUnderTest, _ clause: StorageContractClause) async throws {
        try await backend.check(clause.check)
    }
}
