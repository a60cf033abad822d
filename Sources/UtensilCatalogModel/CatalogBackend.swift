import Foundation
import UtensilCore

/// What utensild asks of a catalog: exactly the calls the store (`UtensilStore`, and the
/// ingest engine through it) makes, and nothing of how they are answered.
///
/// This target (`UtensilCatalogModel`) depends on no database. `SQLiteCatalog`, in the target
/// `UtensilCatalogSQLite`, is the SQLite implementation through GRDB; everything SQLite-specific —
/// the schema and its migrations, FTS5 trigram search, PRAGMAs, WAL, busy timeouts, the
/// mapping of extended result codes and claims to ``CatalogError`` — stays there. The rules
/// below are checked for every backend by `CatalogBackendContractTests`. This protocol is where a second backend plugs in (PostgreSQL through postgres-nio, for
/// several hosts sharing one catalog): a type in a target of its own conforming to it, chosen
/// where the daemon opens its catalog (`StartUp`). Its signatures use only the catalog's own
/// value types (``UtensilRecord``, ``CatalogPage``, `ListSort`, ``CatalogCategory``,
/// ``CatalogCategoryChange``, ``CatalogSnapshot``, ``CatalogError``), never a database type.
///
/// What every implementation must keep:
/// - each call is atomic and, once it returns, durable;
/// - uniqueness is enforced by the database itself, between concurrent writers too: a
///   record's `nameClaim` and `contentClaim` are unique among rows that have them, and a
///   refusal is told apart by which claim it hit (``CatalogError/duplicateName(existing:)``,
///   ``CatalogError/duplicateContent(existing:)``, ``CatalogError/alreadyIngested`` for a
///   `sourceKey` taken), never by an error message's text;
/// - a database that cannot answer just now (busy, read-only, unreachable, full) throws
///   ``CatalogError/unavailable(code:detail:)``: the caller retries later;
/// - names are compared by the keys the caller computed (`nameKey`, `searchKey`, `sortKey`):
///   the backend does not fold case or accents itself.
///
/// Every call is `async`: a backend on the network suspends while it waits. A backend whose
/// calls answer at once (SQLite's) may satisfy the requirements with synchronous methods.
/// Code on threads of its own (the store, the ingest engine) calls through `CatalogAwait`
/// in `UtensilIngest`, which runs the call on the waiting thread itself.
public protocol CatalogBackend: CatalogHostRegistry, CatalogDuties, CatalogLoading, CatalogEventLog, CatalogLookalikes {
    // MARK: Ingest

    /// Commits new utensils in one transaction; each is refused on its own (a duplicate among
    /// them refuses only itself) and the decoder-crash counts of the committed ones' sources
    /// are forgotten with them.
    /// - Returns: for each record, in order, nil when it was committed or why it was refused.
    /// - Throws: when the transaction as a whole failed: nothing was committed.
    func insert(batch records: [UtensilRecord]) async throws(CatalogError) -> [CatalogError?]
    /// Puts a new photo into an existing utensil (not one in the trash): the photo's fields of
    /// `photo` (extension, size, dimensions, hash, source, content claim, `addedBy`) go into
    /// the row `photo.id`, whose name, category and `createdAt` stay; `updatedAt` is set.
    /// ``CatalogError/notFound`` when it is gone or in the trash,
    /// ``CatalogError/duplicateContent(existing:)`` when another utensil claims the photo.
    func replacePhoto(with photo: UtensilRecord) async throws(CatalogError) -> UtensilRecord
    /// Counts one more decoder crash on the drop with this source key; returns the new count.
    func recordDecoderCrash(sourceKey: String) async throws(CatalogError) -> Int
    /// How many times the drop with this source key crashed the decoder.
    func decoderCrashes(sourceKey: String) async throws(CatalogError) -> Int

    // MARK: Finding utensils

    func utensil(id: UUID) async throws(CatalogError) -> UtensilRecord?
    /// The utensil committed from exactly this inbox entry (see ``UtensilRecord/sourceKey``).
    func utensil(sourceKey: String) async throws(CatalogError) -> UtensilRecord?
    /// A utensil that came from the file with this identity under any inbox name.
    func utensil(sameFileAs fileIdentity: String) async throws(CatalogError) -> UtensilRecord?
    /// The utensil (not in the trash) with this name key.
    func utensil(nameKey: String) async throws(CatalogError) -> UtensilRecord?
    /// A utensil (the trash too) with these exact bytes.
    func utensil(sha256: String) async throws(CatalogError) -> UtensilRecord?
    /// Utensils (not in the trash) with this name key, newest first.
    func utensils(nameKey: String) async throws(CatalogError) -> [UtensilRecord]
    /// Before a drop is read, in one call: the claim of it (when `claim` is given: as
    /// ``CatalogDuties/claimDuty(_:for:now:until:)``), and, whether or not it was claimed, the
    /// utensil from the same file (``utensil(sameFileAs:)``) and the file's decoder crashes
    /// (``decoderCrashes(sourceKey:)``), both by `fileIdentity`.
    func lookUp(drop fileIdentity: String, claiming claim: DutyClaim?) async throws(CatalogError) -> DropLookup
    /// ``utensil(nameKey:)`` and ``utensil(sha256:)`` in one call.
    func duplicates(nameKey: String, sha256: String) async throws(CatalogError) -> DuplicateCandidates

    // MARK: Listing

    /// Utensils not in the trash.
    func count() async throws(CatalogError) -> Int
    /// Every utensil id, the trash too (for reconciling the files with the rows).
    func allIDs() async throws(CatalogError) -> Set<UUID>
    /// Utensils, the trash too.
    func countAll() async throws(CatalogError) -> Int
    /// Up to `limit` utensil ids (the trash too) in id order after `id`: a walk over the whole
    /// catalog a page at a time (`rethumb`).
    func ids(after id: UUID?, limit: Int) async throws(CatalogError) -> [UUID]
    /// One page of utensils (keyset pagination); `search` is a search key, matched anywhere
    /// in the name; `favoriteOf` keeps only that user's favorites. A `cursor` it did not hand
    /// out is ``CatalogError/invalidCursor``.
    func list(
        search: String?, category: String?, addedBy: String?, favoriteOf: String?, sort: ListSort, limit: Int,
        after cursor: String?
    ) async throws(CatalogError) -> CatalogPage
    /// Every category of the utensils not in the trash, with its count, in name order.
    func categories() async throws(CatalogError) -> [CatalogCategory]
    /// The utensils in the trash, longest there first; with `before`, only those trashed earlier.
    func trashed(before: Date?) async throws(CatalogError) -> [UtensilRecord]

    // MARK: Changes

    /// Renames a utensil (not one in the trash); claims the name when `claim` is set.
    func rename(id: UUID, name: String, nameKey: String, searchKey: String, claim: Bool) async throws(CatalogError) -> UtensilRecord
    /// Sets or (with nil) clears a utensil's category.
    func setCategory(id: UUID, to category: UtensilName?) async throws(CatalogError) -> UtensilRecord
    /// Moves a utensil to the trash at `date` (its name claim is given up, its content claim kept).
    func trash(id: UUID, at date: Date) async throws(CatalogError) -> UtensilRecord
    /// Brings a utensil back from the trash, under `newName` if given, claiming its name when asked.
    func restore(id: UUID, as newName: UtensilName?, claimName: Bool) async throws(CatalogError) -> UtensilRecord
    /// Deletes a row for good; returns it.
    func delete(id: UUID) async throws(CatalogError) -> UtensilRecord

    /// Renames a category for all its utensils (the trash too); into an existing one, merges.
    /// ``CatalogError/notFound`` when no utensil outside the trash has it.
    func renameCategory(_ old: String, to new: UtensilName, at date: Date) async throws(CatalogError) -> CatalogCategoryChange
    /// Takes every utensil (the trash too) out of a category.
    /// ``CatalogError/notFound`` when no utensil outside the trash has it.
    func deleteCategory(_ name: String, at date: Date) async throws(CatalogError) -> CatalogCategoryChange

    // MARK: Favorites

    /// Marks (or with `favorite` false, unmarks) a utensil not in the trash as a favorite of
    /// `user`; doing it twice changes nothing. ``CatalogError/notFound`` when there is no
    /// such utensil or it is in the trash.
    func setFavorite(id: UUID, of user: String, _ favorite: Bool) async throws(CatalogError) -> UtensilRecord
    /// Which of `ids` are favorites of `user`.
    func favorites(of user: String, among ids: [UUID]) async throws(CatalogError) -> Set<UUID>

    // MARK: Backup

    /// The catalog frozen as it is now, for `utensilctl backup` (every backend writes it out
    /// as a SQLite file: see ``CatalogSnapshot``).
    func snapshot() async throws(CatalogError) -> any CatalogSnapshot

    // MARK: Health

    /// The database's own consistency check: `["ok"]` when it is sound, else what it found.
    func integrityCheck() async throws(CatalogError) -> [String]
}
