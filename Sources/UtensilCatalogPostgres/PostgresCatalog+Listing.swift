import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel
import UtensilCore

/// Pages of utensils (keyset pagination over the listing indexes) and the trash.
extension PostgresCatalog {
    public func list(
        search: String?, category: String?, addedBy: String?, favoriteOf: String?, sort: ListSort, limit: Int,
        after cursor: String?
    ) async throws(CatalogError) -> CatalogPage {
        let limit = max(1, min(limit, 10_000))
        let position = try cursor.map { (cursor: String) throws(CatalogError) -> PostgresListCursor in
            guard let position = PostgresListCursor(cursor, sort: sort) else { throw CatalogError.invalidCursor }
            return position
        }
        // Names hold no control character (and PostgreSQL text no NUL): such a search matches nothing.
        if let search, search.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return CatalogPage(utensils: [], next: nil)
        }
        var filter = PostgresFilter()
        filter.add("trashed_at IS NULL")
        if let category { filter.add("category_key = $", UtensilName.uniquenessKey(for: category)) }
        if let addedBy { filter.add("added_by = $", addedBy) }
        if let favoriteOf { filter.add("id IN (SELECT utensil_id FROM favorites WHERE user_name = $)", favoriteOf) }
        let term = search.flatMap { $0.isEmpty ? nil : $0 }
        // A search no other filter narrows has its own plan (walk the listing order, then
        // gather: ``PostgresSearchPlan``); a narrowed one leaves the choice to the planner.
        let searchPlanned = term != nil && category == nil && addedBy == nil && favoriteOf == nil
        if let term, !searchPlanned {
            // Anywhere in the folded name; the trigram index (pg_trgm) finds terms of three
            // characters and more without reading every row.
            filter.add("search_key LIKE $ ESCAPE '\\'", LikePattern.containing(term))
        }
        let descending = sort == .newestFirst
        let column = sort == .name ? "sort_key" : "created_at"
        if let position {
            let comparison = descending ? "<" : ">"
            switch position.value {
            case .sortKey(let key):
                filter.add("(sort_key, id) \(comparison) ($, $)", key, position.id)
            case .microseconds(let microseconds):
                filter.add(
                    "(created_at, id) \(comparison) (timestamptz 'epoch' + $ * interval '1 microsecond', $)",
                    microseconds, position.id)
            }
        }
        let direction = descending ? "DESC" : "ASC"
        let cursorValue = sort == .name
            ? "sort_key"
            : "(extract(epoch FROM created_at) * 1000000)::bigint::text"
        let columns = "\(UtensilColumns.list), \(cursorValue)"
        let order = "ORDER BY \(column) \(direction), id \(direction)"
        let rows: [(UtensilRecord, String)]
        if let term, searchPlanned {
            rows = try await searchPage(term, filter: filter, columns: columns, column: column, order: order, limit: limit)
        } else {
            rows = try await page(filter.query(
                select: "SELECT \(columns) FROM utensils", order: order, limit: limit + 1, idsFirst: term != nil))
        }
        var next: String?
        if rows.count > limit, case let (last, value)? = rows.prefix(limit).last {
            next = PostgresListCursor.encode(value: value, id: last.id)
        }
        return CatalogPage(utensils: rows.prefix(limit).map(\.0), next: next)
    }

    /// The first `limit + 1` matches of `term` after the filter's cursor, found the way
    /// ``PostgresSearchPlan`` says: a short walk of the listing order; else, when a sample says
    /// the term is rare enough, every match gathered and sorted; else a longer walk, and every
    /// match gathered when that does not fill the page either.
    private func searchPage(
        _ term: String, filter: PostgresFilter, columns: String, column: String, order: String, limit: Int
    ) async throws(CatalogError) -> [(UtensilRecord, String)] {
        let plan = searchPlan
        func search(_ reach: PostgresFilter.SearchReach) async throws(CatalogError) -> [(UtensilRecord, String)] {
            try await page(filter.searchQuery(
                columns: columns, column: column, order: order, term: term, reach: reach, limit: limit + 1))
        }
        let walked = try await search(.walk(plan.walkFirst))
        if walked.count > limit { return walked }
        if try await estimatedMatches(of: term, sampling: plan.sampleSize) < plan.gatherBelow {
            return try await search(.gather)
        }
        return try await search(.walkThenGather(plan.walkAtMost))
    }

    /// How many utensils (not in the trash) hold `term`, estimated from a random sample of
    /// about `sampleSize` of them (`TABLESAMPLE SYSTEM`: whole pages of the table, so a few
    /// milliseconds whatever its size); the count itself when there are no more than that.
    /// The sample is the same pages from one search to the next (`REPEATABLE`, while the table
    /// keeps its size), so that they stay in the cache: pages chosen afresh each time are read
    /// from the disk each time.
    func estimatedMatches(of term: String, sampling sampleSize: Int) async throws(CatalogError) -> Int {
        let logger = logger
        return try await read { connection in
            let query: PostgresQuery = """
                SELECT count(*) FILTER (WHERE strpos(search_key, \(term)) > 0), count(*), (SELECT utensils FROM utensil_count)
                FROM utensils TABLESAMPLE SYSTEM (least(100, \(sampleSize) * 100.0 / greatest((SELECT utensils FROM utensil_count), 1)))
                REPEATABLE (0) WHERE trashed_at IS NULL
                """
            var estimate = Int.max
            for try await (hits, sampled, total) in try await connection.query(query, logger: logger).decode((Int, Int, Int).self) {
                estimate = sampled == 0 ? total : Int((Double(hits) / Double(sampled) * Double(total)).rounded(.up))
            }
            return estimate
        }
    }

    /// The rows of a listing query: each utensil with its cursor value (the column after the
    /// utensil's).
    private func page(_ query: PostgresQuery) async throws(CatalogError) -> [(UtensilRecord, String)] {
        let logger = logger
        return try await read { connection in
            var rows: [(UtensilRecord, String)] = []
            for try await row in try await connection.query(query, logger: logger) {
                let cells = row.makeRandomAccess()
                rows.append((try UtensilColumns.record(cells), try cells[UtensilColumns.count].decode(String.self)))
            }
            return rows
        }
    }

    public func trashed(before: Date?) async throws(CatalogError) -> [UtensilRecord] {
        if let before {
            return try await all("""
                SELECT \(unescaped: UtensilColumns.list) FROM utensils
                WHERE trashed_at IS NOT NULL AND trashed_at < \(before) ORDER BY trashed_at, id
                """)
        }
        return try await all(
            "SELECT \(unescaped: UtensilColumns.list) FROM utensils WHERE trashed_at IS NOT NULL ORDER BY trashed_at, id")
    }
}

/// A WHERE clause built from fixed SQL fragments, each `$` in them a bound value.
struct PostgresFilter {
    private var conditions: [String] = []
    private var bindings = PostgresBindings()

    mutating func add(_ condition: String, _ values: any PostgresDynamicTypeEncodable...) {
        var numbered = ""
        var next = values.makeIterator()
        for character in condition {
            if character == "$", let value = next.next() {
                bindings.append(value)
                numbered += "$\(bindings.count)"
            } else {
                numbered.append(character)
            }
        }
        conditions.append(numbered)
    }

    /// `select`, the conditions, `order` and a bound LIMIT of `limit` rows.
    ///
    /// With `idsFirst`, the page's ids are found first (`SELECT id FROM utensils`, the
    /// conditions, `order`, the limit) and only their rows are read: the conditions can then be
    /// tested in an index alone (a search over the listing indexes, which carry `search_key`),
    /// where reading whole rows would fetch from the table every row the conditions refuse.
    func query(select: String, order: String, limit: Int, idsFirst: Bool = false) -> PostgresQuery {
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        var bindings = bindings
        bindings.append(limit)
        let page = "\(whereClause) \(order) LIMIT $\(bindings.count)"
        if idsFirst {
            return PostgresQuery(unsafeSQL: "\(select) WHERE id IN (SELECT id FROM utensils\(page)) \(order)", binds: bindings)
        }
        return PostgresQuery(unsafeSQL: select + page, binds: bindings)
    }

    /// How a search statement looks for a page's matches (``searchQuery(columns:column:order:term:reach:limit:)``).
    enum SearchReach: Equatable {
        /// Among the first `n` rows the conditions select in the listing order (an index-only
        /// walk of the listing index, which carries `search_key`).
        case walk(Int)
        /// As ``walk(_:)``, and when that finds fewer than the page, every match instead
        /// (as ``gather``).
        case walkThenGather(Int)
        /// Every match, found through the trigram index (LIKE), then sorted.
        case gather
    }

    /// The first `limit` rows, in `order`, that the conditions select and whose `search_key`
    /// holds `term`, found as `reach` says, in one statement. Gathering is fenced with
    /// OFFSET 0 (which keeps the planner from walking the listing index for it); after a walk
    /// its condition on the walk's count is a one-time filter, so that it does not run at all
    /// when the walk filled the page. Only the page's rows are then read whole.
    func searchQuery(columns: String, column: String, order: String, term: String, reach: SearchReach, limit: Int) -> PostgresQuery {
        let whereClause = " WHERE " + conditions.joined(separator: " AND ")
        var bindings = bindings
        func bound<Value: PostgresNonThrowingEncodable>(_ value: Value) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        let pageSize = bound(limit)
        func walk(_ entries: Int) -> String {
            let listing = "SELECT id, \(column), search_key FROM utensils\(whereClause) \(order) LIMIT \(bound(entries))"
            return "SELECT id FROM (\(listing)) AS walk WHERE strpos(search_key, \(bound(term))) > 0 \(order) LIMIT \(pageSize)"
        }
        func gather() -> String {
            let pattern = bound(LikePattern.containing(term))
            let matches = "SELECT id, \(column) FROM utensils\(whereClause) AND search_key LIKE \(pattern) ESCAPE '\\' OFFSET 0"
            return "SELECT id FROM (SELECT id FROM (\(matches)) AS matches \(order) LIMIT \(pageSize)) AS gathered"
        }
        let walked: String?, ids: String
        switch reach {
        case .walk(let entries):
            walked = walk(entries)
            ids = "SELECT id FROM walked"
        case .walkThenGather(let entries):
            walked = walk(entries)
            ids = """
                SELECT id FROM walked WHERE (SELECT count(*) FROM walked) >= \(pageSize)
                UNION ALL
                \(gather()) WHERE (SELECT count(*) FROM walked) < \(pageSize)
                """
        case .gather:
            walked = nil
            ids = gather()
        }
        let with = walked.map { "WITH walked AS (\($0)) " } ?? ""
        return PostgresQuery(unsafeSQL: "\(with)SELECT \(columns) FROM utensils WHERE id IN (\(ids)) \(order)", binds: bindings)
    }
}

/// Where a page of a listing ends: the sort value and id of its last utensil. Opaque to the
/// caller (base64url of the value, a NUL and the id); a cursor that does not decode, or does
/// not encode back to itself, was not handed out by this catalog.
struct PostgresListCursor {
    enum Value {
        case sortKey(String)
        case microseconds(Int64)
    }

    let value: Value
    let id: UUID

    init?(_ cursor: String, sort: ListSort) {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let id = UUID(uuidString: String(parts[1])),
              Self.encode(value: String(parts[0]), id: id) == cursor
        else { return nil }
        if sort == .name {
            value = .sortKey(String(parts[0]))
        } else {
            // Only a time PostgreSQL can hold (years 1 to 9999): a crafted one out of range
            // would fail the query as if the catalog were down.
            guard let microseconds = Int64(parts[0]), Self.representable.contains(microseconds) else { return nil }
            value = .microseconds(microseconds)
        }
        self.id = id
    }

    /// Microseconds since 1970 from 0001-01-01 to 9999-12-31 (UTC).
    static let representable: ClosedRange<Int64> = -62_135_596_800_000_000...253_402_300_799_999_999

    static func encode(value: String, id: UUID) -> String {
        Data((value + "\u{0}" + id.uuidString).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
