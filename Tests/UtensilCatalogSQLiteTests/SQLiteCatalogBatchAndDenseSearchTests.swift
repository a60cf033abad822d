import Foundation
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// Group commits (several rows in one transaction) and searches that match most of the catalog.
@Suite("SQLite catalog batches and dense searches")
struct SQLiteCatalogBatchAndDenseSearchTests {
    let folder: URL
    let catalog: SQLiteCatalog

    init() throws {
        folder = try temporaryFolder("catalog")
        catalog = try SQLiteCatalog(path: folder.appendingPathComponent("utensils.sqlite").path, searchPlan: Self.plan)
    }

    /// Small enough for a test to cross both bounds with a few thousand rows.
    static let plan = SearchPlan(gatherBelow: 1000, walkAtMost: 2000)

    func record(_ name: String, sha: String = UUID().uuidString, at date: Date = Date()) -> UtensilRecord {
        let key = name.lowercased()
        return UtensilRecord(
            id: UUID(), name: name, nameKey: key, searchKey: key, fileExtension: "jpg", createdAt: date,
            width: 10, height: 10, bytes: 1, sha256: sha, sourceKey: UUID().uuidString, nameClaim: key,
            contentClaim: sha)
    }

    @Test func aDuplicateInABatchRefusesOnlyItself() throws {
        try catalog.insert(record("Ladle", sha: "ladle"))
        let batch = [record("Whisk"), record("Ladle"), record("Tongs", sha: "ladle"), record("Sieve")]
        let refusals = try catalog.insert(batch: batch)
        #expect(refusals.count == 4)
        #expect(refusals[0] == nil && refusals[3] == nil)
        #expect(refusals[1] == .duplicateName(existing: "Ladle"))
        #expect(refusals[2] == .duplicateContent(existing: "Ladle"))
        #expect(Set(try catalog.all().map(\.name)) == ["Ladle", "Whisk", "Sieve"])
    }

    @Test func twoRowsOfOneBatchClashWithEachOther() throws {
        let refusals = try catalog.insert(batch: [record("Spoon"), record("spoon")])
        #expect(refusals[0] == nil)
        #expect(refusals[1] == .duplicateName(existing: "Spoon"))
    }

    @Test func aCommittedRowForgetsItsDecoderCrashes() throws {
        let row = record("Grater")
        try catalog.recordDecoderCrash(sourceKey: row.sourceKey!)
        _ = try catalog.insert(batch: [row])
        #expect(try catalog.decoderCrashes(sourceKey: row.sourceKey!) == 0)
    }

    /// From `gatherBelow` matches on the search walks the sort order instead of sorting the
    /// matches; both ways must give the same pages, cursor by cursor.
    @Test func denseAndSelectiveSearchesPageAlike() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let count = Self.plan.gatherBelow + 500
        var rows: [UtensilRecord] = []
        for index in 0..<count {
            // Every name holds "pan"; one in 10 holds "copper" (selective: under the threshold).
            let name = index % 10 == 0 ? "Copper pan \(index)" : "Steel pan \(index)"
            rows.append(record(name, at: start.addingTimeInterval(Double(index / 3))))  // ties on purpose
        }
        #expect(try catalog.insert(batch: rows).allSatisfy { $0 == nil })
        // GRDB stores dates as "yyyy-MM-dd HH:mm:ss.SSS" text; ties are broken by id.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        let createdKey = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, formatter.string(from: $0.createdAt)) })
        for (term, expected) in [("pan", rows), ("copper", rows.filter { $0.name.hasPrefix("Copper") })] {
            for sort in ListSort.allCases {
                let ordered = expected.sorted { a, b in
                    let (x, y) = sort == .name ? (a.nameKey, b.nameKey) : (createdKey[a.id]!, createdKey[b.id]!)
                    if x != y { return sort == .newestFirst ? x > y : x < y }
                    return sort == .newestFirst ? a.id.uuidString > b.id.uuidString : a.id.uuidString < b.id.uuidString
                }
                var seen: [UUID] = []
                var cursor: String?
                repeat {
                    let page = try catalog.list(search: term, sort: sort, limit: 700, after: cursor)
                    seen += page.utensils.map(\.id)
                    cursor = page.next
                } while cursor != nil
                #expect(seen == ordered.map(\.id), "\(term), \(sort)")
            }
        }
    }

    /// A dense term whose matches all sit past the rows the walk looks at is gathered instead.
    @Test func aDenseTermMatchingOnlyFarAlongTheSortOrderStillFillsItsPage() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var rows: [UtensilRecord] = []
        for index in 0..<(Self.plan.walkAtMost + 100) {
            rows.append(record("Apple corer \(index)", at: start.addingTimeInterval(Double(index))))
        }
        for index in 0..<(Self.plan.gatherBelow + 10) {
            rows.append(record("Zinc whisk \(index)", at: start.addingTimeInterval(Double(index))))
        }
        #expect(try catalog.insert(batch: rows).allSatisfy { $0 == nil })
        let page = try catalog.list(search: "whisk", sort: .name, limit: 50, after: nil)
        let expected = rows.filter { $0.name.hasPrefix("Zinc") }.sorted { $0.sortKey < $1.sortKey }.prefix(50)
        #expect(page.utensils.map(\.id) == expected.map(\.id))
        #expect(page.next != nil)
    }
}
