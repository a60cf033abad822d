import Foundation
import Glibc
import Logging
import Synchronization
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// The one owner of utensild's state: the state folder's layout (`originals/`,
/// `thumbnails/`, `previews/`), the catalog, and `rejected/` as far as a retry takes files out of it.
///
/// Every operation that changes rows and files together lives here once, in its own file:
/// the commit of an ingest and a photo replacement (`UtensilStore+Commit`), trash, restore,
/// delete and purge (`+Removal`), rename and category (`+Edits`), retry from `rejected/`
/// (`+Rejected`), and the rows-versus-files scan that start-up reconciliation mends and
/// `check` reports (`+Reconcile`). Callers — the ingest engine, the control handler, the web
/// gallery, the trash purger — decode, authorise and call; none of them changes the state
/// folder or writes a utensil's row itself, nor holds the catalog (`HostHeart` writes the
/// heartbeat rows through the store; the daemon's event log writes its own table).
///
/// Crash safety, the same everywhere: files a new row needs are durable in `staging/` before
/// the row is committed, and moved into place after; files a removed row leaves are moved
/// into `staging/` before it is committed, and removed after (`UtensilStore+Staging`). So a
/// `kill -9` at any instant leaves at most files in `staging/`, which ``reconcile()`` puts
/// into place or removes at the next start, looking at nothing else; never a row without
/// its files. Every name below the state folder and `rejected/` is resolved beneath a held
/// folder (``HeldFolder``), never through a link.
///
/// There is one store in a process: the ingest target's `StartUp.prepare` creates it and
/// every front door (the ingest engine, the control handler, the web gallery, the trash purger,
/// `rethumb`) is handed that same instance. The settings a reload may change
/// (`duplicate_names`, `max_file_bytes`, the thumbnail quality, the log level …) are held inside
/// it and replaced by ``reload(_:logger:)``, so every caller sees the new ones at once; the
/// locks that keep two operations on one utensil apart (``whileChanging(_:_:)``) and the gate a
/// backup closes for its snapshot are its own, not the process's.
///
/// What a door calls is async (reads, row edits, trash, restore and delete for good, the
/// purge, `check`, `rejected` and `retry`, backup, favorites, the heartbeat, rendition reads):
/// it is awaited in the caller's own task, with no thread hop, and its locks and gate suspend
/// it rather than block a thread. The operations the ingest engine drives on its own threads
/// (admission, the commit, `rethumb`'s swap) and start-up recovery block: they reach the
/// async seams, and take the same locks and gate, through ``CatalogAwait``.
public final class UtensilStore: Sendable {
    /// The settings in force, as of the last reload (read once per operation where an
    /// operation needs several of them to agree).
    public var settings: IngestSettings { current.withLock { $0.settings } }
    /// The rows, behind the small interface the store needs (SQLite's ``SQLiteCatalog`` or PostgreSQL's);
    /// the store's own: every row of a utensil, and this host's heartbeat, is written through the store.
    let catalog: any CatalogBackend
    /// The logger in force (a reload may change its level).
    public var logger: Logger { current.withLock { $0.logger } }
    package let faults: FaultInjection
    private let current: Mutex<Reloadable>
    /// Striped by utensil id (see ``whileChanging(_:_:)-async``).
    private let changing = (0..<64).map { _ in ChangeLock() }
    /// Closed by a backup for the instant of its snapshot (see ``SnapshotGate``).
    let snapshotGate = SnapshotGate()
    /// Told after each operation that may change how many utensils there are.
    let changes = UtensilChanges()
    /// Commits whose outcome is not known yet (see ``settleUncertainCommits()``).
    let uncertainCommits = Mutex<[PendingUtensil]>([])
    /// Committed utensils whose renditions could not be published (see ``placeUnplacedFiles()``).
    let unplacedCommits = Mutex<[PendingUtensil]>([])
    /// The fingerprints held for the look-up of near duplicates (see ``holdFingerprints()``).
    let heldFingerprints = HeldFingerprints()

    /// What a reload replaces.
    private struct Reloadable: Sendable {
        var settings: IngestSettings
        var logger: Logger
    }

    /// Where the utensils' renditions are kept: the store stages, publishes, reads and removes
    /// them through it alone (see ``RenditionStorage``).
    let storage: any RenditionStorage

    /// A store over `catalog` and `storage`, the backends the configuration chose.
    public init(
        settings: IngestSettings, catalog: any CatalogBackend, storage: any RenditionStorage, logger: Logger,
        faults: FaultInjection = .fromEnvironment()
    ) {
        self.current = Mutex(Reloadable(settings: settings, logger: logger))
        self.catalog = catalog
        self.storage = storage
        self.faults = faults
    }

    /// A store over `catalog` and the local folder `settings.stateDirectory` (``localStorage(_:faults:)``).
    public convenience init(
        settings: IngestSettings, catalog: any CatalogBackend, logger: Logger, faults: FaultInjection = .fromEnvironment()
    ) {
        self.init(
            settings: settings, catalog: catalog, storage: Self.localStorage(settings, faults: faults), logger: logger,
            faults: faults)
    }

    /// The storage in `settings.stateDirectory`, this host's staging folder its own, its steps
    /// passed to `faults` (``FaultInjection/storageStep(_:)``).
    public static func localStorage(_ settings: IngestSettings, faults: FaultInjection) -> LocalFolderStorage {
        LocalFolderStorage(layout: settings.layout, hostName: settings.hostName) { (step) throws(SystemError) in
            try faults.storageStep(step)
        }
    }

    /// Puts reloaded settings (and a logger at the reloaded level) in force for every operation
    /// that starts from now on. The folders (`inbox`, `rejected`, `state_dir`) need a restart and
    /// are kept as they were.
    public func reload(_ settings: IngestSettings, logger: Logger) {
        current.withLock { current in
            var settings = settings
            settings.inbox = current.settings.inbox
            settings.rejected = current.settings.rejected
            settings.stateDirectory = current.settings.stateDirectory
            current = Reloadable(settings: settings, logger: logger)
        }
    }

    /// Runs `body` while no other operation of this store moves the files of utensil `id`
    /// (a delete and a replacement of the same utensil at once would otherwise leave the
    /// new photo without its row outside `staging/`). Fresh ingests need none: their ids are new.
    /// Waiting for the lock suspends the caller's task; it blocks no thread.
    func whileChanging<T, E: Error>(_ id: UUID, _ body: () async throws(E) -> T) async throws(E) -> T {
        let lock = changing[Int(id.uuid.15) % changing.count]
        await lock.lock()
        defer { lock.unlock() }
        return try await body()
    }

    /// The same lock, taken on a thread of the ingest engine (a replacement's commit,
    /// `rethumb`) through ``CatalogAwait``, the engine's bridge.
    func whileChanging<T, E: Error>(_ id: UUID, _ body: () throws(E) -> T) throws(E) -> T {
        let lock = changing[Int(id.uuid.15) % changing.count]
        CatalogAwait.run { await lock.lock() }
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Layout

    /// `<UUID>.<ext>`, the name of a utensil's original in `originals/` (``StateLayout``).
    static func originalName(id: UUID, fileExtension: String) -> [UInt8] {
        Array(StateLayout.fileName(of: .original, id: id, fileExtension: fileExtension).utf8)
    }

    /// `<UUID>.jpeg`, the name of a utensil's thumbnail in `thumbnails/`.
    static func thumbnailName(id: UUID) -> [UInt8] {
        Array(StateLayout.fileName(of: .thumbnail, id: id, fileExtension: "jpeg").utf8)
    }

    /// `<UUID>.jpeg`, the name of a utensil's preview in `previews/`.
    static func previewName(id: UUID) -> [UInt8] {
        Array(StateLayout.fileName(of: .preview, id: id, fileExtension: "jpeg").utf8)
    }

    /// `<UUID>.<ext>` → the UUID.
    static func utensilID(fromFileName name: [UInt8]) -> UUID? {
        guard let dot = name.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        return UUID(uuidString: name[..<dot].lossyString)
    }

    // MARK: Reading

    /// A utensil by id, or (unless `byIDOnly`) by name.
    public func find(_ target: String, byIDOnly: Bool = false) async throws(StoreError) -> UtensilRecord {
        try await fromCatalog { () async throws(CatalogError) in
            if let id = UUID(uuidString: target), let record = try await catalog.utensil(id: id) { return record }
            guard !byIDOnly else { throw CatalogError.notFound }
            let matches = try await catalog.utensils(
                nameKey: UtensilName.uniquenessKey(for: target.trimmingCharacters(in: .whitespaces)))
            if matches.count > 1 { throw CatalogError.ambiguousName(ids: matches.map(\.id.uuidString)) }
            guard let record = matches.first else { throw CatalogError.notFound }
            return record
        }
    }

    /// Utensils not in the trash.
    public func count() async throws(StoreError) -> Int {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.count() }
    }

    /// A value after each operation of this store that may have changed ``count()`` (an
    /// ingest's commit, trash, restore, delete for good), from now on; at most one waits.
    public func countChanges() -> AsyncStream<Void> {
        changes.follow()
    }

    /// One page of utensils; see ``CatalogBackend/list(search:category:addedBy:favoriteOf:sort:limit:after:)``.
    /// `search` is as a person typed it.
    public func list(
        search: String?, category: String?, addedBy: String?, favoriteOf: String? = nil, sort: ListSort, limit: Int,
        after: String?
    ) async throws(StoreError) -> CatalogPage {
        try await fromCatalog { () async throws(CatalogError) in
            try await catalog.list(
                search: search.map(UtensilName.searchKey(for:)), category: category, addedBy: addedBy,
                favoriteOf: favoriteOf, sort: sort, limit: limit, after: after)
        }
    }

    /// Every category with how many utensils it has.
    public func categories() async throws(StoreError) -> [CatalogCategory] {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.categories() }
    }

    /// The utensils in the trash, longest there first.
    public func trashed() async throws(StoreError) -> [UtensilRecord] {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.trashed(before: nil) }
    }

    /// Where a utensil's original is.
    public func originalPath(of record: UtensilRecord) -> RawPath {
        settings.originalPath(id: record.id.uuidString, fileExtension: record.fileExtension)
    }

    /// Where a utensil's thumbnail is.
    public func thumbnailPath(of record: UtensilRecord) -> RawPath {
        settings.thumbnailPath(id: record.id.uuidString)
    }

    /// Where a utensil's preview is.
    public func previewPath(of record: UtensilRecord) -> RawPath {
        settings.previewPath(id: record.id.uuidString)
    }

    /// How the JSON names `rendition` of a utensil: its path, or `s3://BUCKET/KEY` in a
    /// bucket (``RenditionStorage/url(of:)``).
    public func location(_ rendition: Rendition, of record: UtensilRecord) -> String {
        location(rendition, of: record.id, fileExtension: record.fileExtension)
    }

    /// How the JSON names `rendition` of utensil `id`, whose photo is of type `fileExtension`.
    public func location(_ rendition: Rendition, of id: UUID, fileExtension: String) -> String {
        storage.url(of: RenditionKey(rendition, of: id, originalExtension: fileExtension))
    }

    /// Whether the renditions are kept in `state_dir` (the local folder) rather than elsewhere
    /// (a bucket).
    public var keepsRenditionsInStateFolder: Bool { storage is LocalFolderStorage }

    /// Whether the storage answers, changing nothing. The local folder answers while its
    /// `originals/` can be written. Any other (a bucket) is asked for the size of a rendition
    /// no utensil has, and its absence is an answer; a server that does not answer, refuses
    /// the keys or lacks the bucket is not (``StoreError/fileSystem(_:)`` saying which).
    public func askStorage() async -> Result<Int, StoreError> {
        if keepsRenditionsInStateFolder {
            let originals = settings.originals.description
            return access(originals, W_OK) == 0
                ? .success(0)
                : .failure(.fileSystem("\(originals) cannot be written (\(String(cString: strerror(errno))))"))
        }
        let nobody = RenditionKey(.thumbnail, of: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), originalExtension: "jpeg")
        do throws(StorageError) {
            _ = try await storage.forProbes().size(of: nobody)
            return .success(0)
        } catch .notFound {
            return .success(0)
        } catch {
            return .failure(.fileSystem("\(error)"))
        }
    }

    /// Runs one call of the storage from this thread (see ``CatalogAwait``, the same bridge).
    func storageCall<T: Sendable>(_ body: @escaping @Sendable (any RenditionStorage) async throws(StorageError) -> T) throws(StorageError) -> T {
        let storage = storage
        return try CatalogAwait.run { () async throws(StorageError) in try await body(storage) }
    }

    /// Awaits `body`'s calls of the catalog; its refusal is the store's (``StoreError/init(_:)``).
    func fromCatalog<T>(_ body: () async throws(CatalogError) -> T) async throws(StoreError) -> T {
        do {
            return try await body()
        } catch {
            throw StoreError(error)
        }
    }
}

/// Why a store operation did not happen (or, for ``filesNotRemoved(_:)``, not completely),
/// with the sentence a person needs where the catalog's own reason is not enough.
///
/// Each refusal has one spelling: a utensil, category or file that is not there is always
/// ``notFound(_:)`` and a name that is taken always ``duplicateName(_:)``, whether the store
/// or the catalog found it (``init(_:)`` maps the catalog's); ``catalog(_:)`` holds the rest.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The catalog could not answer (busy, failing) or refused for another reason than the two
    /// below (a cursor it did not hand out, an ambiguous name); callers turn these into
    /// sentences the same way for every operation.
    case catalog(CatalogError)
    /// The utensil, category or file asked for is not there (the sentence says what to do).
    case notFound(String)
    /// A new name or category is not a valid name.
    case invalidName(String)
    /// The name is taken (the sentence says what to do).
    case duplicateName(String)
    /// The request names something that cannot be acted on (a sidecar, a path).
    case invalidRequest(String)
    /// A file operation failed; nothing was changed.
    case fileSystem(String)
    /// The rows were changed but some files could not be removed; they are named, and were
    /// logged. Start-up reconciliation removes them, `utensilctl check` lists them meanwhile.
    case filesNotRemoved(String)

    /// The store's spelling of a catalog refusal: not found and name taken as ``notFound(_:)``
    /// and ``duplicateName(_:)``, anything else as ``catalog(_:)``.
    public init(_ error: CatalogError) {
        switch error {
        case .notFound: self = .notFound(Self.noSuchUtensil)
        case .duplicateName(let existing): self = .duplicateName("A utensil named \(existing) already exists; choose another name.")
        default: self = .catalog(error)
        }
    }

    /// The sentence of a utensil id or name that names none.
    public static let noSuchUtensil = "No utensil has that id or name; `utensilctl list` shows them."

    public var description: String {
        switch self {
        case .catalog(let error): error.description
        case .notFound(let message), .invalidName(let message), .duplicateName(let message),
             .invalidRequest(let message), .fileSystem(let message), .filesNotRemoved(let message):
            message
        }
    }
}
