import Foundation
import UtensilCore

/// Where a utensil's renditions (its original, thumbnail, preview and grid square) are kept, as the
/// promises the store needs of it rather than as paths. ``LocalFolderStorage`` keeps them in
/// `state_dir`; another storage (object storage) keeps the same promises with its own means.
///
/// An operation that adds renditions goes in two steps around the catalog's commit (a new
/// utensil's may go in one: ``stageNew(_:of:originalExtension:)``):
///
/// 1. ``stage(_:of:originalExtension:)`` then ``makeDurable(_:)``: the bytes are kept, not yet
///    live (no read or listing of live renditions sees them), and survive a crash from the
///    moment `makeDurable` returns — so the row committed next never lacks its files;
/// 2. after the commit, ``publish(_:)``: they become live, never over a live rendition. If the
///    commit did not happen, ``discard(_:)``.
///
/// What a crash leaves between the two steps is in ``listStaged()``, for recovery to publish
/// (the row was committed) or discard (it was not). ``list(_:)`` is every live rendition, for
/// `check` and recovery to measure against the rows. ``delete(_:)`` and ``discard(_:)`` are
/// idempotent: what is already gone is fine.
///
/// Every rule here is tested against every implementation by the storage contract tests.
public protocol RenditionStorage: Sendable {
    /// Makes the storage ready to use (creates what it needs that is missing).
    func prepare() async throws(StorageError)

    /// Keeps `renditions` of utensil `utensil` under a new operation, not live and not yet
    /// durable (see ``makeDurable(_:)``). `originalExtension` is the photo's type (`jpeg`,
    /// `png` …). Nothing is left behind when this throws.
    func stage(
        _ renditions: [Rendition: [UInt8]], of utensil: UUID, originalExtension: String
    ) async throws(StorageError) -> StagedRenditions

    /// ``stage(_:of:originalExtension:)`` for a new utensil: `utensil` is an id made for this
    /// operation, so no row and no live rendition has it. A storage may put the renditions
    /// straight under their live keys (each a create that refuses to overwrite), where no
    /// reader looks before the row's commit: the operation is then
    /// ``StagedRenditions/isPlacedLive``, ``publish(_:)`` only forgets it, ``discard(_:)``
    /// deletes them, and until one of the two it is in ``listStaged()`` (with every rendition it
    /// may have put), so that a crash before the commit leaves it for recovery: published if
    /// its row was committed, else discarded. Any other storage stages them as for any operation.
    func stageNew(
        _ renditions: [Rendition: [UInt8]], of utensil: UUID, originalExtension: String
    ) async throws(StorageError) -> StagedRenditions

    /// Begins ``stageNew(_:of:originalExtension:)`` with a new utensil's original alone, known
    /// before its other renditions are made: a storage whose writes are requests (a bucket)
    /// puts it while the photo decodes. The others follow under the same operation with
    /// ``stageNew(_:joining:)``, or ``discard(_:)`` undoes it; until one of the two, a crash
    /// leaves it in ``listStaged()`` as ``stageNew(_:of:originalExtension:)`` does. A storage
    /// that gains nothing by it (a local folder, whose staging is a local write) returns nil,
    /// and the original goes with the rest. `sha256` is the original's SHA-256 in lower-case
    /// hex (as the catalog records it), for a storage that checks the bytes it receives against
    /// it. Nothing is left behind when this throws.
    func beginNew(original: [UInt8], sha256: String, of utensil: UUID, originalExtension: String) async throws(StorageError) -> StagedRenditions?

    /// Whether ``beginNew(original:sha256:of:originalExtension:)`` may begin anything: false
    /// for a storage whose `beginNew` always returns nil, so that the caller need not start a
    /// task to be told so.
    var beginsNewAhead: Bool { get }

    /// Puts `renditions` (not the original) of the operation `begun`
    /// (``beginNew(original:sha256:of:originalExtension:)``) as ``stageNew(_:of:originalExtension:)``
    /// does, and returns the whole operation. When this throws, nothing of the operation is
    /// left, its original included.
    func stageNew(_ renditions: [Rendition: [UInt8]], joining begun: StagedRenditions) async throws(StorageError) -> StagedRenditions

    /// Makes staged operations durable, together (a group of operations shares the cost).
    func makeDurable(_ operations: [StagedRenditions]) async throws(StorageError)

    /// Makes an operation's staged renditions live: the grid square, the preview, then the
    /// thumbnail, then the original. Never replaces a live rendition: one that is there already is
    /// ``StorageError/alreadyLive(_:)``, and it and the staged ones not yet published stay
    /// as they were. A rendition not staged (discarded, already published) is
    /// ``StorageError/notStaged(_:)``.
    func publish(_ operation: StagedRenditions) async throws(StorageError)

    /// Removes an operation's staged renditions; those already gone are fine.
    func discard(_ operation: StagedRenditions) async throws(StorageError)

    /// The size in bytes of a live rendition; ``StorageError/notFound(_:)`` when there is none.
    func size(of key: RenditionKey) async throws(StorageError) -> Int64

    /// The size of a live rendition and its version, a word that changes whenever it is
    /// replaced (an HTTP `ETag`); ``StorageError/notFound(_:)`` when there is none.
    func status(of key: RenditionKey) async throws(StorageError) -> RenditionStatus

    /// ``status(of:)`` for a reader that names the version it expects (the gallery's `?v=`):
    /// a storage that keeps renditions in memory asks again when the name changes.
    func status(of key: RenditionKey, askedAs version: String?) async throws(StorageError) -> RenditionStatus

    /// The bytes of a live rendition, all of them or those in `range` (offsets in bytes; the
    /// part past its end is cut off, so a range starting at or past the end reads nothing).
    /// ``StorageError/notFound(_:)`` when there is none.
    func read(_ key: RenditionKey, range: Range<Int64>?) async throws(StorageError) -> [UInt8]

    /// The bytes of a live rendition, all of them or those in `range` (cut off at its end as
    /// ``read(_:range:)`` is), handed to `consume` chunk by chunk as they come, the next asked
    /// for only once `consume` has returned: a large original is served without being held
    /// whole. Throws a ``StorageError`` (``StorageError/notFound(_:)`` when there is none) or
    /// what `consume` throws, which stops the reading.
    func stream(_ key: RenditionKey, range: Range<Int64>?, into consume: ([UInt8]) async throws -> Void) async throws

    /// The bytes of `rendition` as `operation` staged it, for recovery to tell whose it is;
    /// ``StorageError/notStaged(_:)`` when it has none staged.
    func readStaged(_ rendition: Rendition, of operation: StagedRenditions) async throws(StorageError) -> [UInt8]

    /// Removes a live rendition, durably; one that is not there is fine.
    func delete(_ key: RenditionKey) async throws(StorageError)

    /// Takes live renditions out of use into a new staged operation, durably: a delete's first
    /// step, before its row's removal is committed. The original goes first, then the others
    /// in `keys`' order; one not there is passed over. ``publish(_:)`` puts them back (the
    /// commit did not happen), ``discard(_:)`` removes them for good. When this throws, what
    /// was taken out is back in place.
    func unpublish(_ keys: [RenditionKey]) async throws(StorageError) -> StagedRenditions

    /// Makes every publish and discard done so far durable, together: start-up recovery's many
    /// share the cost. A storage whose every change is durable when it returns does nothing.
    func makeChangesDurable() async throws(StorageError)

    /// Every live rendition of kind `rendition`, in no particular order.
    func list(_ rendition: Rendition) async throws(StorageError) -> [RenditionKey]

    /// The operations staged and neither published nor discarded (what a crash left), with
    /// the renditions each still has staged.
    func listStaged() async throws(StorageError) -> [StagedRenditions]

    /// How a utensil's JSON and `show` name a live rendition: its path for a local folder,
    /// `s3://BUCKET/KEY` for a bucket. A name only: nothing is asked of the storage.
    func url(of key: RenditionKey) -> String

    /// Every live rendition of kind `rendition` with when it was last written (``list(_:)``
    /// with ages), for the sweeper's grace period.
    func listDated(_ rendition: Rendition) async throws(StorageError) -> [DatedRendition]

    /// The operations every host sharing the storage (this one too) staged and neither
    /// published nor discarded, each with its host and when it was last written: what a crash
    /// of any host left, for the sweeper and `check`.
    func listEveryHostsStaged() async throws(StorageError) -> [HostStagedOperation]

    /// What the storage holds where only utensild writes that is none of the names it writes
    /// (put there by a person or another program), each with when it was last written, for
    /// `check` to report and everything else to leave alone. A storage whose such files
    /// `check` finds by its own look (a local folder's) lists none.
    func listForeign() async throws(StorageError) -> [ForeignObject]

    /// This storage as host `hostName` uses it: its staged operations are that host's, so that
    /// ``publish(_:)``, ``discard(_:)`` and ``readStaged(_:of:)`` finish or undo what that
    /// host left (the sweeper's work).
    func asHost(_ hostName: String) -> any RenditionStorage

    /// Aborts what uploads cut off before `cutoff` left half done and unseen (a bucket's
    /// multipart uploads); how many. A storage without such uploads has none.
    func abortUnfinishedUploads(begunBefore cutoff: Date) async throws(StorageError) -> Int

    /// This storage for a question that must be answered at once (a health probe, the size of
    /// a file a browser waits for): each request given up after ``probeTimeoutSeconds``
    /// (a bucket's client would otherwise retry a refused connection until its own, long,
    /// time-out). A storage whose calls are not requests is itself.
    func forProbes() -> any RenditionStorage
}

/// The most one read of ``RenditionStorage/stream(_:range:into:)``'s default asks for: 128 KiB.
public let streamChunkBytes: Int64 = 128 * 1024

/// How long a health probe's request to the storage may take (``RenditionStorage/forProbes()``).
public let probeTimeoutSeconds: Int64 = 2

extension RenditionStorage {
    /// Any storage's ``unpublish(_:)``, with its other operations: the live renditions read,
    /// staged and made durable, then deleted (the original first); a delete that fails has
    /// those already deleted published again and the rest discarded.
    public func unpublish(_ keys: [RenditionKey]) async throws(StorageError) -> StagedRenditions {
        let ordered = keys.filter { $0.rendition == .original } + keys.filter { $0.rendition != .original }
        let utensil = ordered.first?.utensil ?? UUID()
        let originalExtension = ordered.first { $0.rendition == .original }?.fileExtension ?? "jpeg"
        var renditions: [Rendition: [UInt8]] = [:]
        for key in ordered {
            do throws(StorageError) {
                renditions[key.rendition] = try await read(key, range: nil)
            } catch .notFound {
                continue
            }
        }
        let staged = try await stage(renditions, of: utensil, originalExtension: originalExtension)
        do throws(StorageError) {
            try await makeDurable([staged])
        } catch {
            try? await discard(staged)
            throw error
        }
        var deleted: Set<Rendition> = []
        for key in ordered where staged.renditions.contains(key.rendition) {
            do throws(StorageError) {
                try await delete(key)
                deleted.insert(key.rendition)
            } catch {
                let back = StagedRenditions(
                    utensil: utensil, operation: staged.operation, originalExtension: originalExtension, renditions: deleted)
                try? await publish(back)
                try? await discard(staged)
                throw error
            }
        }
        return staged
    }

    /// Any storage's ``stream(_:range:into:)``: ranged reads of ``streamChunkBytes`` one after
    /// another (a local file's reads are cheap; a bucket's answer is streamed whole instead).
    public func stream(_ key: RenditionKey, range: Range<Int64>?, into consume: ([UInt8]) async throws -> Void) async throws {
        var offset = range?.lowerBound ?? 0
        let end = range?.upperBound ?? .max
        repeat {
            let chunk = offset..<min(offset + streamChunkBytes, end)
            let bytes = try await read(key, range: chunk)
            if bytes.isEmpty { return }
            try await consume(bytes)
            guard bytes.count == chunk.count else { return }
            offset = chunk.upperBound
        } while offset < end
    }

    /// Staged as any operation is: not live until published.
    public func stageNew(
        _ renditions: [Rendition: [UInt8]], of utensil: UUID, originalExtension: String
    ) async throws(StorageError) -> StagedRenditions {
        try await stage(renditions, of: utensil, originalExtension: originalExtension)
    }

    /// False: ``beginNew(original:sha256:of:originalExtension:)`` begins nothing.
    public var beginsNewAhead: Bool { false }

    /// Nil: the original is staged with the rest.
    public func beginNew(original: [UInt8], sha256: String, of utensil: UUID, originalExtension: String) async throws(StorageError) -> StagedRenditions? {
        nil
    }

    /// Never called: ``beginNew(original:sha256:of:originalExtension:)`` began nothing. Its original
    /// is not staged.
    public func stageNew(_ renditions: [Rendition: [UInt8]], joining begun: StagedRenditions) async throws(StorageError) -> StagedRenditions {
        throw .notStaged(begun.key(.original))
    }

    /// Its size, with no version (a reader cannot tell a replaced rendition by it).
    public func status(of key: RenditionKey) async throws(StorageError) -> RenditionStatus {
        RenditionStatus(size: try await size(of: key), version: nil)
    }

    /// ``status(of:)``: nothing is kept in memory.
    public func status(of key: RenditionKey, askedAs version: String?) async throws(StorageError) -> RenditionStatus {
        try await status(of: key)
    }

    /// Nothing to do: every change was durable when it returned.
    public func makeChangesDurable() async throws(StorageError) {}

    /// None: `check` looks through a local folder itself.
    public func listForeign() async throws(StorageError) -> [ForeignObject] { [] }

    /// None: uploads of this storage are never left half done.
    public func abortUnfinishedUploads(begunBefore cutoff: Date) async throws(StorageError) -> Int { 0 }

    /// Itself: its calls are not requests that could wait on a server.
    public func forProbes() -> any RenditionStorage { self }
}

/// A live rendition as ``RenditionStorage/listDated(_:)`` lists it.
public struct DatedRendition: Hashable, Sendable {
    public var key: RenditionKey
    /// When it was last written (a bucket's clock for an object, the file's modification time
    /// in a folder); a storage that does not say gives the time of the listing.
    public var written: Date

    public init(key: RenditionKey, written: Date) {
        self.key = key
        self.written = written
    }
}

/// What ``RenditionStorage/listForeign()`` finds: an object none of whose name utensild writes.
public struct ForeignObject: Hashable, Sendable {
    /// How it is named to a person: `s3://BUCKET/KEY`.
    public var location: String
    /// When it was last written (a bucket's clock); a storage that does not say gives the time
    /// of the listing.
    public var written: Date

    public init(location: String, written: Date) {
        self.location = location
        self.written = written
    }
}

/// An operation some host staged, as ``RenditionStorage/listEveryHostsStaged()`` finds it.
public struct HostStagedOperation: Hashable, Sendable {
    /// The `host_name` whose staging it is in.
    public var host: String
    public var operation: StagedRenditions
    /// When the newest of its staged renditions was written.
    public var written: Date
    /// How each of its staged renditions is named to a person (a path, or `s3://BUCKET/KEY`), sorted.
    public var locations: [String]

    public init(host: String, operation: StagedRenditions, written: Date, locations: [String]) {
        self.host = host
        self.operation = operation
        self.written = written
        self.locations = locations
    }
}

/// What ``RenditionStorage/status(of:)`` says of a live rendition.
public struct RenditionStatus: Hashable, Sendable {
    /// Its size in bytes.
    public var size: Int64
    /// A word that changes whenever the rendition is replaced; nil when the storage has none.
    public var version: String?

    public init(size: Int64, version: String?) {
        self.size = size
        self.version = version
    }
}

/// One rendition of one utensil: what the storage keeps and hands back by id.
public struct RenditionKey: Hashable, Sendable, CustomStringConvertible {
    public var utensil: UUID
    public var rendition: Rendition
    /// The extension of its file: the photo's type for the original, `jpeg` for the others.
    public var fileExtension: String

    /// The key of `rendition` of a utensil whose original is of type `originalExtension`.
    public init(_ rendition: Rendition, of utensil: UUID, originalExtension: String) {
        self.init(utensil: utensil, rendition: rendition, fileExtension: rendition.fileExtension(original: originalExtension))
    }

    /// A key as listed: the file's own extension, whatever the rendition.
    public init(utensil: UUID, rendition: Rendition, fileExtension: String) {
        self.utensil = utensil
        self.rendition = rendition
        self.fileExtension = fileExtension
    }

    /// `<UUID>.<ext>`, its name in ``StateLayout``.
    public var fileName: String {
        "\(utensil.uuidString).\(fileExtension)"
    }

    public var description: String {
        "the \(rendition.rawValue) of utensil \(utensil.uuidString) (\(fileName))"
    }
}

/// The renditions one operation staged (see ``RenditionStorage``), by utensil and operation:
/// the operation id keeps two operations on one utensil (a delete and a replacement) apart.
public struct StagedRenditions: Hashable, Sendable {
    public let utensil: UUID
    public let operation: UUID
    /// The photo's type (`jpeg` when the operation staged no original).
    public let originalExtension: String
    /// What it staged.
    public let renditions: Set<Rendition>
    /// Whether its renditions were put straight under their live keys
    /// (``RenditionStorage/stageNew(_:of:originalExtension:)``): its publish only forgets it,
    /// and whether its row was committed is all recovery needs to know (its id is new).
    public let isPlacedLive: Bool

    public init(utensil: UUID, operation: UUID, originalExtension: String, renditions: Set<Rendition>, isPlacedLive: Bool = false) {
        self.utensil = utensil
        self.operation = operation
        self.originalExtension = originalExtension
        self.renditions = renditions
        self.isPlacedLive = isPlacedLive
    }

    /// The same operation with only `renditions` left (those not yet published).
    public func keeping(_ renditions: Set<Rendition>) -> StagedRenditions {
        StagedRenditions(
            utensil: utensil, operation: operation, originalExtension: originalExtension, renditions: renditions,
            isPlacedLive: isPlacedLive)
    }

    /// The live key each of its renditions becomes when published.
    public func key(_ rendition: Rendition) -> RenditionKey {
        RenditionKey(rendition, of: utensil, originalExtension: originalExtension)
    }

    /// Its renditions in the order they are published: the grid square, the preview, the
    /// thumbnail, the original (the original last into place, so a live original has its other
    /// files).
    public var publishingOrder: [Rendition] {
        [Rendition.square, .preview, .thumbnail, .original].filter(renditions.contains)
    }
}

/// Why a storage operation did not happen.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No live rendition has that key.
    case notFound(RenditionKey)
    /// A publish would have replaced a live rendition; nothing was replaced.
    case alreadyLive(RenditionKey)
    /// A publish found a rendition of its operation no longer staged (discarded, or published).
    case notStaged(RenditionKey)
    /// A file operation of the local storage failed (its path and the system's reason).
    case fileSystem(SystemError)
    /// An object storage (a bucket) did not do it: down or failing (retry later), or refusing
    /// the credentials or missing its bucket (a configuration to fix); the failure says which.
    case objectStorage(ObjectStorageFailure)

    /// The disk or the user's quota is full.
    public var isNoSpace: Bool {
        if case .fileSystem(let error) = self { return error.isNoSpace }
        return false
    }

    public var description: String {
        switch self {
        case .notFound(let key): "There is no \(key)."
        case .alreadyLive(let key): "\(key.description.prefix(1).uppercased())\(key.description.dropFirst()) is already there; it was not replaced."
        case .notStaged(let key): "\(key.description.prefix(1).uppercased())\(key.description.dropFirst()) is no longer staged."
        case .fileSystem(let error): error.description
        case .objectStorage(let failure): failure.description
        }
    }
}

/// Why an object storage did not do an operation: what kind of trouble, and its backend's
/// message saying what to do.
public struct ObjectStorageFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The server does not answer, or answers too slowly: wait and retry.
        case unreachable
        /// The server refuses the credentials or the signature: fix the configuration.
        case credentialsRefused
        /// The bucket is not there: fix the configuration (or create it).
        case bucketMissing
        /// Any other failure of the server; ``ObjectStorageFailure/isTransient`` says whether
        /// a retry may help (a 5xx) or not.
        case failed
    }

    public var kind: Kind
    /// Whether waiting and trying again may succeed.
    public var isTransient: Bool
    /// What happened and what to do, in the backend's words.
    public var message: String

    public init(kind: Kind, isTransient: Bool, message: String) {
        self.kind = kind
        self.isTransient = isTransient
        self.message = message
    }

    public var description: String { message }
}
