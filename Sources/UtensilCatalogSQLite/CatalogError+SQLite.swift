import Foundation
import GRDB
import UtensilCatalogModel

/// How the SQLite backend turns what SQLite reports into ``CatalogError``: by result codes
/// and by asking the database which claim a refused row clashes with, never by the wording
/// of SQLite's messages (which name a column only in prose).
extension CatalogError {
    /// Maps an error that is not a refusal (busy, locked, read-only, full, I/O, …) to
    /// ``CatalogError/unavailable(code:detail:)``; a ``CatalogError`` passes through.
    static func from(_ error: any Error) -> CatalogError {
        if let catalogError = error as? CatalogError { return catalogError }
        guard let databaseError = error as? DatabaseError else {
            return .unavailable(code: -1, detail: String(describing: error))
        }
        // The message is kept for the log line only; nothing is decided by it.
        let detail = databaseError.message ?? "SQLite error \(databaseError.resultCode.rawValue)"
        return .unavailable(code: databaseError.resultCode.rawValue, detail: detail)
    }

    /// Why SQLite refused to write `record` with `SQLITE_CONSTRAINT_UNIQUE`, asked of the
    /// database in the same transaction, right after the refused statement: which of the
    /// record's unique columns another row already holds. Checked in the order SQLite itself
    /// checks those indexes (the last created first): `contentClaim`, `nameClaim`, `sourceKey`.
    /// A clash on none of them (the id) is not a refusal the caller can act on.
    static func refusal(of record: UtensilRecord, _ error: DatabaseError, _ db: Database) throws -> CatalogError {
        func holder(_ column: String, _ value: String?) throws -> String? {
            guard let value else { return nil }
            return try String.fetchOne(
                db, sql: "SELECT name FROM utensil WHERE \(column) = ? AND id != ?",
                arguments: [value, record.id.uuidString])
        }
        if let existing = try holder("contentClaim", record.contentClaim) { return .duplicateContent(existing: existing) }
        if let existing = try holder("nameClaim", record.nameClaim) { return .duplicateName(existing: existing) }
        if try holder("sourceKey", record.sourceKey) != nil { return .alreadyIngested }
        return from(error)
    }
}

extension DatabaseError {
    /// A UNIQUE constraint refused the statement (a claim is taken).
    var isUniqueViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE }
}
