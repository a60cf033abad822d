import Foundation
import Testing
import UtensilCatalogModel
import UtensilCore

/// The look-up of utensils by fingerprint (``CatalogLookalikes``) finds exactly those within
/// the distance, through the block indexes and beyond them, checked against every backend in
/// ``CatalogBackends/all``.
@Suite("Catalog look-alikes contract", .tags(.spawnsProcesses))
struct CatalogLookalikesContractTests {
    typealias R = ContractRecords
    static let base = Int64(bitPattern: 0x9F3A_61C4_0B7E_D258)

    /// `base` with the given bits flipped.
    static func flipped(_ bits: [Int]) -> Int64 {
        bits.reduce(base) { $0 ^ (Int64(1) << Int64($1)) }
    }

    static func record(_ name: String, _ fingerprint: Int64?, createdAt: Date = Date()) -> UtensilRecord {
        var record = R.record(name, createdAt: createdAt)
        record.fingerprint = fingerprint
        return record
    }

    @Test("a look-up finds the utensils within the distance, nearest first, and nothing else", arguments: CatalogBackends.all)
    func within(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            #expect(try await catalog.lookalikes(of: Self.base, within: 12, limit: 10).isEmpty)
            let start = Date(timeIntervalSince1970: 1_795_000_000)
            // Twelve bits apart, three in each block: the case the blocks' pigeonhole is tightest for.
            let spread = Self.record("Spread", Self.flipped([0, 1, 2, 16, 17, 18, 32, 33, 34, 48, 49, 50]), createdAt: start)
            let near = Self.record("Near", Self.flipped([5, 40, 63]), createdAt: start.addingTimeInterval(1))
            let same = Self.record("Same", Self.base, createdAt: start.addingTimeInterval(2))
            let thirteen = Self.record("Thirteen", Self.flipped([0, 1, 2, 3, 16, 17, 18, 32, 33, 34, 48, 49, 50]))
            let other = Self.record("Other", ~Self.base)
            let unprinted = Self.record("Unprinted", nil)
            let trashed = Self.record("Trashed", Self.base)
            for record in [spread, near, same, thirteen, other, unprinted, trashed] { try await catalog.insertOne(record) }
            _ = try await catalog.trash(id: trashed.id, at: start)

            let found = try await catalog.lookalikes(of: Self.base, within: 12, limit: 10)
            #expect(found.map(\.utensil.name) == ["Same", "Near", "Spread"])
            #expect(found.map(\.distance) == [0, 3, 12])
            #expect(found.first?.utensil == (try await catalog.utensil(id: same.id)))
            #expect(try await catalog.lookalikes(of: Self.base, within: 12, limit: 2).map(\.utensil.name) == ["Same", "Near"])
            #expect(try await catalog.lookalikes(of: Self.base, within: 13, limit: 10).map(\.utensil.name)
                == ["Same", "Near", "Spread", "Thirteen"])
            #expect(try await catalog.lookalikes(of: Self.base, within: 2, limit: 10).map(\.utensil.name) == ["Same"])
            // Beyond the indexed distances every fingerprint is read.
            #expect(try await catalog.lookalikes(of: Self.base, within: 64, limit: 10).map(\.distance) == [0, 3, 12, 13, 64])
            #expect(try await catalog.lookalikes(of: ~Self.base, within: 0, limit: 10).map(\.utensil.name) == ["Other"])
        }
    }

    @Test("a new photo's fingerprint replaces the old one's", arguments: CatalogBackends.all)
    func replaced(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let whisk = Self.record("Whisk", Self.base)
            try await catalog.insertOne(whisk)
            var photo = R.record("Whisk", sha: "new", source: "1:2:3:4@path")
            photo.id = whisk.id
            photo.fingerprint = ~Self.base
            let replaced = try await catalog.replacePhoto(with: photo)
            #expect(replaced.fingerprint == ~Self.base)
            #expect(try await catalog.utensil(id: whisk.id)?.fingerprint == ~Self.base)
            #expect(try await catalog.lookalikes(of: Self.base, within: 12, limit: 10).isEmpty)
            #expect(try await catalog.lookalikes(of: ~Self.base, within: 12, limit: 10).map(\.utensil.id) == [whisk.id])
        }
    }
}
