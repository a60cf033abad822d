import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilStore
import UtensilTestSupport

/// The fingerprints held in memory answer a look-up as the catalog's own look-up does, and
/// never with a utensil the catalog no longer has (a real SQLite catalog).
@Suite("Fingerprints held in memory")
struct FingerprintMemoryTests {
    static func record(_ index: Int, _ fingerprint: Int64) -> UtensilRecord {
        let name = "Utensil \(index)"
        return UtensilRecord(
            id: UUID(), name: name, nameKey: UtensilName.uniquenessKey(for: name), searchKey: UtensilName.searchKey(for: name),
            fileExtension: "jpg", createdAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(index)), width: 10, height: 10,
            bytes: 1, sha256: String(index), sourceKey: nil, nameClaim: nil, contentClaim: nil, fingerprint: fingerprint)
    }

    @Test func answersAsTheCatalogDoesAndConfirmsEveryCandidate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fingerprint-memory-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = try SQLiteCatalog(path: folder.appendingPathComponent("catalog.sqlite").path)
        var generator = SeededGenerator(seed: 0xF1A6)
        var fingerprints: [Int64] = []
        for index in 0..<3_000 {
            // Every third a near copy of the one before: look-ups that find several.
            var fingerprint = Int64(bitPattern: generator.next())
            if index % 3 == 2 { fingerprint = fingerprints[index - 1] ^ (Int64(1) << Int64(index % 64)) ^ 0x0100_0010 }
            fingerprints.append(fingerprint)
        }
        let records = fingerprints.enumerated().map { Self.record($0.offset, $0.element) }
        #expect(try catalog.insert(batch: records).allSatisfy { $0 == nil })

        let memory = FingerprintMemory()
        #expect(try await memory.load(from: catalog, pageSize: 700) == 3_000)
        for round in 0..<60 {
            let query = round % 2 == 0 ? fingerprints[round * 7] ^ 0x0003_0000_0400 : Int64(bitPattern: generator.next())
            let held = try await memory.lookalikes(of: query, within: 12, limit: 5, in: catalog)
            #expect(held == (try catalog.lookalikes(of: query, within: 12, limit: 5)), "round \(round)")
            if round % 2 == 0 { #expect(!held.isEmpty) }
        }

        // A trashed utensil's fingerprint stays held, but the catalog no longer confirms it.
        let trashed = records[30]
        _ = try catalog.trash(id: trashed.id, at: Date())
        #expect(memory.candidates(of: trashed.fingerprint!, within: 0).contains(trashed.fingerprint!))
        #expect(try await memory.lookalikes(of: trashed.fingerprint!, within: 0, limit: 5, in: catalog).isEmpty)

        // One committed after the load is found once added.
        let late = Self.record(3_000, 0x7777_0000_7777_0000)
        #expect(try catalog.insert(batch: [late]).allSatisfy { $0 == nil })
        #expect(try await memory.lookalikes(of: late.fingerprint!, within: 12, limit: 5, in: catalog).isEmpty)
        memory.add(late.fingerprint!)
        #expect(try await memory.lookalikes(of: late.fingerprint! ^ 0b111, within: 12, limit: 5, in: catalog).map(\.utensil.id) == [late.id])
        #expect(memory.count == 3_001)
    }
}
