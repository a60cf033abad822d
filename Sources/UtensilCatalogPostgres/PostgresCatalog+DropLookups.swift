import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// A drop's look-ups, each in one prepared statement: every call to the server is a round trip
/// and a statement for it to plan and run, both paid for by every drop (planning these took
/// the server ten times as long as running them).
extension PostgresCatalog {
    /// The claim (when asked: the INSERT of ``claimDuty(_:for:now:until:)``, in a data-modifying
    /// WITH, committed without waiting for the WAL flush), the utensil from the same file and
    /// the decoder crashes, in one statement.
    public func lookUp(drop fileIdentity: String, claiming claim: DutyClaim?) async throws(CatalogError) -> DropLookup {
        let sameFile = SameFileKeys(fileIdentity)
        let logger = logger
        return try await read { connection in
            let rows = if let claim {
                try await connection.execute(ClaimedDropLookup(claim: claim, sameFile: sameFile), logger: logger)
            } else {
                try await connection.execute(DropLookupStatement(sameFile: sameFile), logger: logger)
            }
            var lookup = DropLookup(claimed: false, sameFile: nil, decoderCrashes: 0)
            for try await row in rows { lookup = row }
            return lookup
        }
    }

    /// ``utensil(nameKey:)`` and ``utensil(sha256:)`` as the two rows of one statement.
    public func duplicates(nameKey: String, sha256: String) async throws(CatalogError) -> DuplicateCandidates {
        let logger = logger
        return try await read { connection in
            var candidates = DuplicateCandidates(byName: nil, byContent: nil)
            for try await (byName, record) in try await connection.execute(
                DuplicatesStatement(nameKey: nameKey, sha256: sha256), logger: logger)
            {
                if byName { candidates.byName = record } else { candidates.byContent = record }
            }
            return candidates
        }
    }
}

/// The keys ``PostgresCatalog/utensil(sameFileAs:)`` looks between: the source key is the
/// identity alone, or the identity, `@` and more ("@" is followed by "A" in ASCII, and
/// `source_key` compares bytewise).
struct SameFileKeys: Sendable {
    let identity: String, from: String, to: String

    init(_ identity: String) {
        (self.identity, from, to) = (identity, identity + "@", identity + "A")
    }

    /// The crash count, then the utensil's columns (NULL when there is none), from parameter `first` on.
    static func selection(first: Int) -> String {
        """
        coalesce((SELECT crashes FROM decoder_crashes WHERE source_key = $\(first)), 0), \(UtensilColumns.qualified)
        FROM (SELECT 1) AS one LEFT JOIN LATERAL (\(PostgresLookupSQL.sameFile(first: first))) AS u ON true
        """
    }

    func append(to bindings: inout PostgresBindings) {
        bindings.append(identity)
        bindings.append(from)
        bindings.append(to)
    }

    /// The lookup in a row of ``selection(first:)`` preceded by the claim's boolean.
    static func lookup(_ row: PostgresRow) throws -> DropLookup {
        let cells = row.makeRandomAccess()
        let sameFile = try cells[2].decode(UUID?.self) == nil ? nil : try UtensilColumns.record(cells, from: 2)
        return DropLookup(claimed: try cells[0].decode(Bool.self), sameFile: sameFile, decoderCrashes: try cells[1].decode(Int.self))
    }
}

/// ``PostgresCatalog/lookUp(drop:claiming:)`` without a claim.
struct DropLookupStatement: PostgresPreparedStatement {
    static let sql = "SELECT true, " + SameFileKeys.selection(first: 1)
    let sameFile: SameFileKeys

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings()
        sameFile.append(to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> DropLookup { try SameFileKeys.lookup(row) }
}

/// ``PostgresCatalog/lookUp(drop:claiming:)`` with a claim: the statement of
/// ``PostgresCatalog/claimDuty(_:for:now:until:)`` in a data-modifying WITH.
struct ClaimedDropLookup: PostgresPreparedStatement {
    static let sql = "WITH claim AS (\(PostgresLookupSQL.claim(first: 1))) SELECT (SELECT count(*) FROM claim) > 0, "
        + SameFileKeys.selection(first: 5)
    let claim: DutyClaim
    let sameFile: SameFileKeys

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(claim.duty)
        bindings.append(claim.host)
        bindings.append(claim.until)
        bindings.append(claim.now)
        sameFile.append(to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> DropLookup { try SameFileKeys.lookup(row) }
}

/// ``PostgresCatalog/duplicates(nameKey:sha256:)``: a row per utensil found, `true` first for
/// the one the name finds.
struct DuplicatesStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT true, \(UtensilColumns.list) FROM (\(PostgresLookupSQL.byName(first: 1))) AS by_name
        UNION ALL
        SELECT false, \(UtensilColumns.list) FROM (\(PostgresLookupSQL.byContent(first: 2))) AS by_content
        """
    let nameKey: String
    let sha256: String

    func makeBindings() -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(nameKey)
        bindings.append(sha256)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> (Bool, UtensilRecord) {
        let cells = row.makeRandomAccess()
        return (try cells[0].decode(Bool.self), try UtensilColumns.record(cells, from: 1))
    }
}
