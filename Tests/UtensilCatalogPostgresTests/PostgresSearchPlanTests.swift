import Foundation
import Testing
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilCore
import UtensilTestSupport

/// A search's page is the same whichever way ``PostgresSearchPlan`` finds it: by a short walk
/// of the listing order, by gathering every match through the trigram index and sorting them,
/// or by a longer walk and then, when that gives up, gathering.
@Suite(.tags(.spawnsProcesses)) struct PostgresSearchPlanTests {
    /// Small enough for a few hundred rows to cross each bound; the sample is the whole table,
    /// so that the way each search takes is known.
    static let plan = PostgresSearchPlan(walkFirst: 100, sampleSize: 100_000, gatherBelow: 100, walkAtMost: 300)

    static func record(_ name: String, at date: Date) throws -> UtensilRecord {
        let name = try UtensilName(validating: name)
        let sha = UUID().uuidString
        return UtensilRecord(
            id: UUID(), name: name.value, nameKey: name.uniquenessKey, searchKey: name.searchKey, fileExtension: "jpg",
            createdAt: date, width: 10, height: 10, bytes: 1, sha256: sha, sourceKey: UUID().uuidString,
            nameClaim: name.uniquenessKey, contentClaim: sha)
    }

    /// Every term, both sorts, page by page through the cursors: "pan" is in 900 names (the
    /// short walk fills each page), "copper" in 90 (rare enough: gathered), "corer" in 400 that
    /// all sort before the pans and are the oldest (by name the short walk fills every page;
    /// newest first they come last, too common to gather at once: the longer walk gives up
    /// and they are gathered), "whisk" in 120 names that sort after 1,300 others
    /// (gathered when sorted by name, walked when newest first), "whisk 11" in 11 (gathered).
    @Test func walkedAndGatheredPagesAreTheSame() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try await server.withRunningCatalog(searchPlan: Self.plan) { _, catalog, _ in
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            var rows: [UtensilRecord] = []
            for index in 0..<900 {
                let name = index % 10 == 0 ? "Copper pan \(index)" : "Steel pan \(index)"
                rows.append(try Self.record(name, at: start.addingTimeInterval(Double(index / 3))))  // ties on purpose
            }
            for index in 0..<400 { rows.append(try Self.record("Apple corer \(index)", at: start)) }
            for index in 0..<120 {
                rows.append(try Self.record("Zinc whisk \(index)", at: start.addingTimeInterval(Double(1_000 + index))))
            }
            for batch in stride(from: 0, to: rows.count, by: 200) {
                let refusals = try await catalog.insert(batch: Array(rows[batch..<min(batch + 200, rows.count)]))
                #expect(refusals.allSatisfy { $0 == nil })
            }
            for term in ["pan", "copper", "corer", "whisk", "whisk 11"] {
                let matching = rows.filter { $0.searchKey.contains(term) }
                for sort in [ListSort.name, .newestFirst] {
                    let expected = matching.sorted { a, b in
                        if sort == .name { return (a.sortKey, a.id.uuidString) < (b.sortKey, b.id.uuidString) }
                        if a.createdAt != b.createdAt { return a.createdAt > b.createdAt }
                        return a.id.uuidString > b.id.uuidString
                    }
                    var seen: [UUID] = []
                    var cursor: String?
                    repeat {
                        let page = try await catalog.list(
                            search: term, category: nil, addedBy: nil, favoriteOf: nil, sort: sort, limit: 70, after: cursor)
                        seen += page.utensils.map(\.id)
                        cursor = page.next
                    } while cursor != nil
                    #expect(seen == expected.map(\.id), "\(term), \(sort)")
                }
            }
            // A term in no name: the walk gives up, the gather finds nothing.
            let none = try await catalog.list(
                search: "zzqx", category: nil, addedBy: nil, favoriteOf: nil, sort: .name, limit: 70, after: nil)
            #expect(none.utensils.isEmpty && none.next == nil)
        }
    }
}
