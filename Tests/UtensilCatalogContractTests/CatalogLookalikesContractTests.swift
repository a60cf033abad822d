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

    @Test("the look-alike pairs are the copies and what they resemble, until marked not a copy", arguments: CatalogBackends.all)
    func pairs(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let start = Date(timeIntervalSince1970: 1_795_000_000)
            let whisk = Self.record("Whisk", Self.base, createdAt: start)
            var copy = Self.record("Whisk 2", Self.flipped([1, 2]), createdAt: start.addingTimeInterval(1))
            copy.nearDuplicate = NearDuplicate(id: whisk.id, name: "Whisk", distance: 2)
            let ladle = Self.record("Ladle", ~Self.base, createdAt: start.addingTimeInterval(2))
            var ladleCopy = Self.record("Ladle copy", ~Self.base, createdAt: start.addingTimeInterval(3))
            ladleCopy.nearDuplicate = NearDuplicate(id: ladle.id, name: "Ladle", distance: 0)
            for record in [whisk, copy, ladle, ladleCopy] { try await catalog.insertOne(record) }
            #expect(try await catalog.utensil(id: copy.id)?.nearDuplicate == NearDuplicate(id: whisk.id, name: "Whisk", distance: 2))
            #expect(try await catalog.utensil(id: whisk.id)?.nearDuplicate == nil)

            let pairs = try await catalog.nearDuplicatePairs(limit: 10)
            #expect(pairs.map { [$0.copy.name, $0.original.name] } == [["Ladle copy", "Ladle"], ["Whisk 2", "Whisk"]])
            #expect(pairs.map(\.distance) == [0, 2])
            #expect(pairs.last?.original == (try await catalog.utensil(id: whisk.id)))
            #expect(try await catalog.nearDuplicatePairs(limit: 1).map(\.copy.name) == ["Ladle copy"])

            // Marked in either order, once or twice: the pair is gone, the other stays.
            try await catalog.markNotACopy(whisk.id, copy.id)
            try await catalog.markNotACopy(copy.id, whisk.id)
            #expect(try await catalog.nearDuplicatePairs(limit: 10).map(\.copy.name) == ["Ladle copy"])
            // Nor does the copy say any more that it looks like the other; the other pair's copy still does.
            #expect(try await catalog.utensil(id: copy.id)?.nearDuplicate == nil)
            #expect(try await catalog.utensil(id: copy.id)?.fingerprint == Self.flipped([1, 2]))
            #expect(try await catalog.utensil(id: ladleCopy.id)?.nearDuplicate == NearDuplicate(id: ladle.id, name: "Ladle", distance: 0))
            await #expect(throws: CatalogError.notFound) { try await catalog.markNotACopy(whisk.id, UUID()) }
            await #expect(throws: CatalogError.notFound) { try await catalog.markNotACopy(ladle.id, UUID()) }
            #expect(try await catalog.utensil(id: ladleCopy.id)?.nearDuplicate != nil)

            // A pair whose original is in the trash is not shown; deleting the copy forgets its mark.
            _ = try await catalog.trash(id: ladle.id, at: start)
            #expect(try await catalog.nearDuplicatePairs(limit: 10).isEmpty)
            _ = try await catalog.restore(id: ladle.id, as: nil, claimName: true)
            #expect(try await catalog.nearDuplicatePairs(limit: 10).map(\.copy.name) == ["Ladle copy"])
            _ = try await catalog.delete(id: copy.id)
            #expect(try await catalog.nearDuplicatePairs(limit: 10).map(\.copy.name) == ["Ladle copy"])
        }
    }

    @Test("a fingerprint is set only while the photo is the one it was made from", arguments: CatalogBackends.all)
    func setFingerprint(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let old = R.record("Old whisk", sha: "aaa")
            try await catalog.insertOne(old)
            #expect(try await catalog.utensil(id: old.id)?.fingerprint == nil)
            #expect(try await catalog.setFingerprint(id: old.id, to: Self.base, ofPhoto: "bbb") == false)
            #expect(try await catalog.utensil(id: old.id)?.fingerprint == nil)
            #expect(try await catalog.setFingerprint(id: old.id, to: Self.base, ofPhoto: "aaa"))
            #expect(try await catalog.utensil(id: old.id)?.fingerprint == Self.base)
            #expect(try await catalog.lookalikes(of: Self.base, within: 0, limit: 5).map(\.utensil.id) == [old.id])
            #expect(try await catalog.setFingerprint(id: UUID(), to: Self.base, ofPhoto: "aaa") == false)
        }
    }

    @Test("the utensils without a fingerprint are found among those asked about", arguments: CatalogBackends.all)
    func unfingerprinted(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let old = R.record("Old whisk", sha: "aaa")
            let trashed = R.record("Old ladle", sha: "bbb")
            let new = Self.record("New whisk", Self.base)
            for record in [old, trashed, new] { try await catalog.insertOne(record) }
            _ = try await catalog.trash(id: trashed.id, at: Date())
            #expect(try await catalog.unfingerprinted(among: []).isEmpty)
            #expect(try await catalog.unfingerprinted(among: [old.id, trashed.id, new.id, UUID()]) == [old.id, trashed.id])
            #expect(try await catalog.setFingerprint(id: old.id, to: Self.base, ofPhoto: "aaa"))
            #expect(try await catalog.unfingerprinted(among: [old.id, new.id]).isEmpty)
        }
    }

    @Test("a look-up finds exactly what comparing every fingerprint finds", arguments: CatalogBackends.all)
    func exhaustive(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            // Fingerprints 0 to 16 bits from `base`, the bits anywhere: every split over the blocks.
            var state: UInt64 = 12
            func random() -> UInt64 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return state >> 11
            }
            var records: [UtensilRecord] = []
            for index in 0..<300 {
                var bits = Set<Int>()
                while bits.count < index % 17 { bits.insert(Int(random() % 64)) }
                records.append(Self.record("Look-alike \(index)", Self.flipped(Array(bits))))
            }
            _ = try await catalog.insert(batch: records)
            for within in [0, 3, 5, 8, 11, 12, 13, 19] {
                let expected = Set(records.filter { FingerprintBlocks.distance($0.fingerprint ?? 0, Self.base) <= within }.map(\.id))
                let found = try await catalog.lookalikes(of: Self.base, within: within, limit: 1000)
                #expect(Set(found.map(\.utensil.id)) == expected, "within \(within)")
                #expect(found.map(\.distance) == found.map(\.distance).sorted(), "within \(within)")
            }
        }
    }

    @Test("the fingerprints page through every utensil outside the trash, by id", arguments: CatalogBackends.all)
    func paged(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            #expect(try await catalog.fingerprints(after: nil, limit: 10).isEmpty)
            let printed = (0..<7).map { Self.record("Printed \($0)", Self.flipped([$0, 20 + $0])) }
            let unprinted = Self.record("Unprinted", nil)
            let trashed = Self.record("Trashed", Self.base)
            for record in printed + [unprinted, trashed] { try await catalog.insertOne(record) }
            _ = try await catalog.trash(id: trashed.id, at: Date())

            var pages: [[IdentifiedFingerprint]] = []
            var last: UUID?
            while true {
                let page = try await catalog.fingerprints(after: last, limit: 3)
                pages.append(page)
                guard page.count == 3, let end = page.last else { break }
                last = end.id
            }
            #expect(pages.map(\.count) == [3, 3, 1])
            let expected = printed.map { IdentifiedFingerprint(id: $0.id, fingerprint: $0.fingerprint!) }
                .sorted { $0.id.uuidString.lowercased() < $1.id.uuidString.lowercased() }
            #expect(pages.flatMap { $0 } == expected)
            #expect(try await catalog.fingerprints(after: nil, limit: 0).isEmpty)
        }
    }

    @Test("the fingerprints created since a moment leave out older ones, the trash and the unprinted", arguments: CatalogBackends.all)
    func createdSince(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let start = Date(timeIntervalSince1970: 1_795_000_000)
            let older = Self.record("Older", Self.flipped([1]), createdAt: start.addingTimeInterval(-1))
            let atStart = Self.record("At start", Self.flipped([2]), createdAt: start)
            let later = Self.record("Later", Self.flipped([3]), createdAt: start.addingTimeInterval(5))
            let unprinted = Self.record("Unprinted", nil, createdAt: start.addingTimeInterval(5))
            let trashed = Self.record("Trashed", Self.flipped([4]), createdAt: start.addingTimeInterval(5))
            for record in [older, atStart, later, unprinted, trashed] { try await catalog.insertOne(record) }
            _ = try await catalog.trash(id: trashed.id, at: Date())

            let found = try await catalog.fingerprints(createdSince: start)
            let expected = [atStart, later].map { IdentifiedFingerprint(id: $0.id, fingerprint: $0.fingerprint!) }
            #expect(found.sorted { $0.id.uuidString < $1.id.uuidString } == expected.sorted { $0.id.uuidString < $1.id.uuidString })
            #expect(try await catalog.fingerprints(createdSince: start.addingTimeInterval(6)).isEmpty)
        }
    }
}
