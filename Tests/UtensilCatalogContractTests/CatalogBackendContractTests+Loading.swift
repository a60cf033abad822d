import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// ``CatalogLoading/load(_:)``: `utensild restore` into a backend, checked for every backend.
extension CatalogBackendContractTests {
    /// A small catalog with everything a backup carries: a category, the trash, who added
    /// each, the host, a change date, a fingerprint, a look-alike, a favorite and a decoder crash.
    static func sampleContents() -> CatalogContents {
        let hour = Date(timeIntervalSince1970: 1_764_000_000.125)
        var spoon = R.record("Spoon", category: "Serving", addedBy: "alice", createdAt: hour)
        spoon.host = "kitchen-1"
        spoon.fingerprint = Int64(bitPattern: 0xF00D_CAFE_0123_4567)
        spoon.updatedAt = hour.addingTimeInterval(60)
        var ladle = R.record("Ladle", category: "Serving", addedBy: "1001", createdAt: hour.addingTimeInterval(1))
        ladle.nearDuplicate = NearDuplicate(id: spoon.id, name: "Spoon", distance: 7)
        var fork = R.record("Fork", claimName: false, category: "Drawer", createdAt: hour.addingTimeInterval(2))
        fork.trashedAt = hour.addingTimeInterval(3600)
        return CatalogContents(
            utensils: [spoon, ladle, fork].sorted { $0.id.uuidString < $1.id.uuidString },
            favorites: [CatalogFavorite(user: "alice", utensilID: spoon.id)],
            decoderCrashes: [CatalogDecoderCrash(sourceKey: "1:2:3:4", crashes: 1)],
            notACopy: [CatalogNotACopy(ladle.id, spoon.id)])
    }

    /// `record` with its dates to the millisecond (what every backend keeps).
    static func toTheMillisecond(_ record: UtensilRecord) -> UtensilRecord {
        func rounded(_ date: Date) -> Date { Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000) }
        var copy = record
        copy.createdAt = rounded(record.createdAt)
        copy.updatedAt = record.updatedAt.map(rounded)
        copy.trashedAt = record.trashedAt.map(rounded)
        return copy
    }

    @Test("a whole catalog loads into an empty one and reads back the same, in a SQLite file too", arguments: CatalogBackends.all)
    func load(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let contents = Self.sampleContents()
            try await catalog.load(contents)
            for record in contents.utensils {
                let read = try #require(try await catalog.utensil(id: record.id))
                #expect(Self.toTheMillisecond(read) == Self.toTheMillisecond(record))
            }
            #expect(try await catalog.count() == 2)
            #expect(try await catalog.countAll() == 3)
            #expect(try await catalog.categories() == [CatalogCategory(name: "Serving", count: 2)])
            let fork = try #require(contents.utensils.first { $0.name == "Fork" })
            #expect(try await catalog.trashed(before: nil).map(\.id) == [fork.id])
            let spoon = try #require(contents.utensils.first { $0.name == "Spoon" })
            #expect(try await catalog.favorites(of: "alice", among: contents.utensils.map(\.id)) == [spoon.id])
            #expect(try await catalog.decoderCrashes(sourceKey: "1:2:3:4") == 1)
            #expect(try await catalog.names() == ["Ladle", "Spoon"])
            // The claims came along: the name and the photo are taken.
            await #expect(throws: CatalogError.duplicateName(existing: "Spoon")) { try await catalog.insertOne(R.record("SPOON")) }
            await #expect(throws: CatalogError.duplicateContent(existing: "Fork")) {
                try await catalog.insertOne(R.record("Knife", sha: fork.sha256))
            }
            #expect(try await catalog.integrityCheck() == ["ok"])

            // Backed up as a SQLite file and read out of it (as `utensild restore` does): the same.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString).sqlite")
            defer { try? FileManager.default.removeItem(at: file) }
            try await catalog.snapshot().writeSQLite(to: file.path)
            var read = try SQLiteCatalog(path: file.path).contents()
            read.utensils = read.utensils.map(Self.toTheMillisecond)
            var expected = contents
            expected.utensils = expected.utensils.map(Self.toTheMillisecond)
            #expect(read == expected)
        }
    }

    @Test("a catalog larger than one statement takes loads whole", arguments: CatalogBackends.all)
    func loadMany(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let records = (0..<1_201).map { R.record("Utensil \($0)", category: $0 % 3 == 0 ? "Pots" : nil) }
            try await catalog.load(CatalogContents(utensils: records, favorites: []))
            #expect(try await catalog.countAll() == records.count)
            #expect(try await catalog.allIDs() == Set(records.map(\.id)))
            #expect(try await catalog.categories() == [CatalogCategory(name: "Pots", count: 401)])
            let last = try #require(records.last)
            #expect(try await catalog.utensil(id: last.id)?.name == last.name)
        }
    }

    @Test("loading into a catalog that holds a utensil, even in the trash, is refused and changes nothing", arguments: CatalogBackends.all)
    func loadIntoANonEmptyCatalog(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let old = R.record("Whisk")
            try await catalog.insertOne(old)
            _ = try await catalog.trash(id: old.id, at: Date())
            await #expect(throws: CatalogError.notEmpty(utensils: 1)) { try await catalog.load(Self.sampleContents()) }
            #expect(try await catalog.countAll() == 1)
            #expect(try await catalog.count() == 0)
            #expect(try await catalog.decoderCrashes(sourceKey: "1:2:3:4") == 0)
            // Through another handle (another host) too.
            let another = try await opened.another()
            await #expect(throws: CatalogError.notEmpty(utensils: 1)) { try await another.load(Self.sampleContents()) }
            #expect(try await catalog.allIDs() == [old.id])
        }
    }
}
