
/// Why a catalog backend refused or could not do a call: the one refusal vocabulary of
/// ``CatalogBackend``. A backend decides each case from what its database reports in a
/// structured form (SQLite's extended result code and which claim the row clashes with;
/// PostgreSQL's SQLSTATE and constraint name), never from an error message's wording.
public enum CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another utensil already has this name (compared NFC, case-insensitively).
    case duplicateName(existing: String)
    /// Another utensil already has these exact bytes.
    case duplicateContent(existing: String)
    /// This inbox entry was already committed (before a crash): it must not be ingested twice.
    case alreadyIngested
    /// No utensil with that id or name.
    case notFound
    /// A `list` cursor that this catalog did not hand out.
    case invalidCursor
    /// Several utensils have the name asked for (duplicate names allowed): these ids.
    case ambiguousName(ids: [String])
    /// The database cannot answer just now (busy, locked, disk full, read-only, I/O error,
    /// unreachable): not the drop's fault, so the drop is retried later. `code` is the
    /// backend's own error code (SQLite's result code; -1 when there is none), for logs only.
    case unavailable(code: Int32, detail: String)
    /// The catalog already holds this many utensils (the trash counts), and the call
    /// (``CatalogLoading/load(_:)``) is only for an empty one.
    case notEmpty(utensils: Int)

    public var description: String {
        switch self {
        case .duplicateName(let existing): "a utensil named \(existing) already exists"
        case .duplicateContent(let existing): "the same photo is already the utensil \(existing)"
        case .alreadyIngested: "this drop was already ingested"
        case .notFound: "no such utensil"
        case .invalidCursor: "the cursor is not one this catalog handed out"
        case .ambiguousName(let ids): "several utensils have that name: \(ids.joined(separator: ", "))"
        case .unavailable(_, let detail): "the catalog is unavailable: \(detail)"
        case .notEmpty(let utensils): "the catalog already holds \(utensils) utensils"
        }
    }
}
