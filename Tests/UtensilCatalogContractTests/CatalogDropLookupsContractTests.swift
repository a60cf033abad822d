import Foundation
import Testing
import UtensilCatalogModel
import UtensilCore

/// A drop's combined look-ups (``CatalogBackend/lookUp(drop:claiming:)``,
/// ``CatalogBackend/duplicates(nameKey:sha256:)``) answer what the single calls answer, and the
/// claim among them follows the duty rules, checked against every backend in ``CatalogBackends/all``.
@Suite("Catalog drop look-ups contract", .tags(.spawnsProcesses))
struct CatalogDropLookupsContractTests {
    typealias R = ContractRecords
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_795_000_000 + seconds) }
    static func claim(_ host: String, at seconds: Double) -> DutyClaim {
        DutyClaim(duty: "drop:8:9:10:11@path", host: host, now: date(seconds), until: date(seconds + 120))
    }

    @Test("a drop's look-up finds the same file and its crashes, and claims it for one host at a time", arguments: CatalogBackends.all)
    func dropLookUp(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            #expect(try await catalog.lookUp(drop: "8:9:10:11", claiming: nil)
                == DropLookup(claimed: true, sameFile: nil, decoderCrashes: 0))

            let spoon = R.record("Spoon", source: "8:9:10:11@path")
            try await catalog.insertOne(spoon)
            _ = try await catalog.recordDecoderCrash(sourceKey: "8:9:10:11")
            let first = try await catalog.lookUp(drop: "8:9:10:11", claiming: Self.claim("kitchen-a", at: 0))
            #expect(first.claimed)
            #expect(first.sameFile == (try await catalog.utensil(sameFileAs: "8:9:10:11")))
            #expect(first.sameFile?.id == spoon.id)
            #expect(first.decoderCrashes == 1)

            // Another host is refused the claim while the lease lasts, and told the rest all the same.
            let refused = try await catalog.lookUp(drop: "8:9:10:11", claiming: Self.claim("kitchen-b", at: 60))
            #expect(!refused.claimed)
            #expect(refused.sameFile?.id == spoon.id && refused.decoderCrashes == 1)
            #expect(try await catalog.lookUp(drop: "8:9:10:11", claiming: Self.claim("kitchen-a", at: 60)).claimed)
            #expect(try await catalog.lookUp(drop: "8:9:10:11", claiming: Self.claim("kitchen-b", at: 181)).claimed)

            #expect(try await catalog.lookUp(drop: "8:9:10:1", claiming: nil)
                == DropLookup(claimed: true, sameFile: nil, decoderCrashes: 0))
        }
    }

    @Test("the duplicates of a new photo are the utensils its name and its bytes find", arguments: CatalogBackends.all)
    func duplicates(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let catalog = opened.backend
            let key = UtensilName.uniquenessKey(for: "Spoon")
            #expect(try await catalog.duplicates(nameKey: key, sha256: "abc") == DuplicateCandidates(byName: nil, byContent: nil))
            try await catalog.insertOne(R.record("Spoon", sha: "def"))
            try await catalog.insertOne(R.record("Fork", sha: "abc"))
            let both = try await catalog.duplicates(nameKey: key, sha256: "abc")
            #expect(both.byName == (try await catalog.utensil(nameKey: key)))
            #expect(both.byContent == (try await catalog.utensil(sha256: "abc")))
            #expect(both.byName?.name == "Spoon" && both.byContent?.name == "Fork")
            let nameOnly = try await catalog.duplicates(nameKey: key, sha256: "xyz")
            #expect(nameOnly.byName?.name == "Spoon" && nameOnly.byContent == nil)
        }
    }
}
