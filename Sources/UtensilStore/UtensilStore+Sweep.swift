import Foundation
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// The storage sweep: what crashes and refused commits left in the storage, removed once it is
/// older than ``storageSweepGrace``, by one host at a time (``storageSweepDuty``).
///
/// What it finds, and what it does:
/// - an operation staged by any host (its `staging/<host_name>/`): finished or undone as start-up
///   recovery would (`UtensilStore+Staging`): one whose staged original is its row's photo (or
///   a new utensil's placed live whose row is there) is published, the rest discarded. A host
///   that died and never started again has nobody else to recover its staging; one that did
///   start may have looked before an upload cut off by its `kill -9` landed;
/// - a live rendition whose utensil has no row (in the trash counts as a row), and an original
///   beside its row's own of another type (a replacement interrupted): deleted;
/// - an unfinished upload (a bucket's multipart upload) begun before the grace: aborted.
///
/// Never anything younger than the grace (an upload in flight on another host, a commit
/// waiting for its catalog), and never a rendition a row points at: the rows are read after
/// the listing, and a live rendition appears only after its row's commit — or, a new
/// utensil's in a bucket, just before it, far less than the grace before.
extension UtensilStore {
    /// The duty of sweeping the storage, which one host sharing the catalog does at a time.
    public static let storageSweepDuty = "storage-sweep"

    /// How old a leftover in the storage must be before the sweeper touches it: an hour, far
    /// longer than any operation takes between its staging and its publish, and than the clocks
    /// of the hosts and the storage may differ.
    public static let storageSweepGrace: TimeInterval = 3600

    /// What one sweep of the storage did.
    public struct StorageSweep: Sendable, Equatable {
        /// Whether another host sharing the catalog holds the sweep, so this host did not sweep.
        public var anotherHostSweeps = false
        /// Staged operations whose row was committed: their renditions were put into place.
        public var rolledForward: [HostStagedOperation] = []
        /// Staged operations without a committed row (or of a committed delete): removed.
        public var discarded: [HostStagedOperation] = []
        /// Live renditions without a row, removed: how the storage names them (a path, `s3://…`).
        public var orphansRemoved: [String] = []
        /// Unfinished uploads aborted.
        public var uploadsAborted = 0
        /// Leftovers younger than the grace, left for a later sweep.
        public var youngLeft = 0
        /// What could not be done (each a sentence); it is tried again at the next sweep.
        public var problems: [String] = []

        public init() {}

        /// Whether it changed anything.
        public var changedAnything: Bool {
            !rolledForward.isEmpty || !discarded.isEmpty || !orphansRemoved.isEmpty || uploadsAborted > 0
        }
    }

    /// Sweeps the storage once, if this host holds (or can take) ``storageSweepDuty``: every
    /// leftover written before `now` minus `grace` is finished or removed (see above). The duty
    /// is renewed before each change and the sweep stops when it is lost. `now` is the sweep's
    /// clock at its start (a test may set it ahead); it goes on with the real one.
    /// - Throws: when the storage cannot be listed or the catalog cannot answer; a single
    ///   leftover that cannot be mended is a ``StorageSweep/problems`` line instead.
    public func sweepStorage(now: Date = Date(), grace: TimeInterval = storageSweepGrace) async throws(StoreError) -> StorageSweep {
        let started = Date()
        let clock = { now.addingTimeInterval(Date().timeIntervalSince(started)) }
        let cutoff = now.addingTimeInterval(-grace)
        let host = settings.hostName
        let catalog = self.catalog
        let holdDuty = { () async throws(StoreError) -> Bool in
            let at = clock()
            do throws(CatalogError) {
                return try await catalog.claimDuty(Self.storageSweepDuty, for: host, now: at, until: at.addingTimeInterval(Self.dutyLease))
            } catch {
                throw StoreError(error)
            }
        }
        var sweep = StorageSweep()
        guard try await holdDuty() else {
            sweep.anotherHostSweeps = true
            return sweep
        }

        let staged = try await listedByStorage { storage async throws(StorageError) in try await storage.listEveryHostsStaged() }
        for leftover in staged.sorted(by: { $0.written < $1.written }) {
            guard leftover.written < cutoff else {
                sweep.youngLeft += 1
                continue
            }
            guard try await holdDuty() else {
                sweep.anotherHostSweeps = true
                return sweep
            }
            do throws(SweepProblem) {
                if try await finishOrUndo(leftover) {
                    sweep.rolledForward.append(leftover)
                } else {
                    sweep.discarded.append(leftover)
                }
            } catch {
                sweep.problems.append("\(error.sentence) (staged by \(leftover.host): \(leftover.locations.joined(separator: ", ")))")
            }
        }

        var live: [DatedRendition] = []
        for rendition in Rendition.allCases {
            live += try await listedByStorage { storage async throws(StorageError) in try await storage.listDated(rendition) }
        }
        // Read after the listing: a rendition is published only after its row's commit (a new
        // utensil's in a bucket just before it, far less than the grace), so an old rendition
        // listed without a row here has none.
        let ids: Set<UUID>
        do throws(CatalogError) {
            ids = try await catalog.allIDs()
        } catch {
            throw StoreError(error)
        }
        let old = live.filter { $0.written < cutoff }
        sweep.youngLeft += live.count - old.count
        var doomed = old.filter { !ids.contains($0.key.utensil) }.map(\.key)
        doomed += try await replacedOriginals(among: old.map(\.key).filter { $0.rendition == .original && ids.contains($0.utensil) })
        for key in doomed {
            guard try await holdDuty() else {
                sweep.anotherHostSweeps = true
                return sweep
            }
            do throws(StorageError) {
                try await storage.delete(key)
                sweep.orphansRemoved.append(storage.url(of: key))
            } catch {
                sweep.problems.append("Cannot remove \(storage.url(of: key)), which no utensil has (\(error))")
            }
        }

        guard try await holdDuty() else {
            sweep.anotherHostSweeps = true
            return sweep
        }
        do throws(StorageError) {
            sweep.uploadsAborted = try await storage.abortUnfinishedUploads(begunBefore: cutoff)
        } catch {
            sweep.problems.append("Cannot abort the unfinished uploads (\(error))")
        }
        return sweep
    }

    /// Why one leftover was left as it was.
    private struct SweepProblem: Error {
        let sentence: String
    }

    /// Publishes a staged operation whose row was committed (its original is the row's photo,
    /// or, without an original, what its row lacks live), discarding the rest; discards one
    /// without such a row. Returns whether it published. Only absence counts as absence.
    private func finishOrUndo(_ leftover: HostStagedOperation) async throws(SweepProblem) -> Bool {
        let operation = leftover.operation
        let storage = self.storage.asHost(leftover.host)
        let record: UtensilRecord?
        do throws(CatalogError) {
            record = try await catalog.utensil(id: operation.utensil)
        } catch {
            throw SweepProblem(sentence: "Cannot ask the catalog about utensil \(operation.utensil.uuidString) (\(error))")
        }
        if operation.isPlacedLive {  // A new utensil's, its renditions live: its row decides.
            do throws(StorageError) {
                if record != nil { try await storage.publish(operation) } else { try await storage.discard(operation) }
            } catch {
                throw SweepProblem(
                    sentence: "Cannot \(record == nil ? "remove" : "put into place") the files of utensil \(operation.utensil.uuidString) (\(error))")
            }
            return record != nil
        }
        var publishing = Set<Rendition>()
        if let record {
            do throws(StorageError) {
                if operation.renditions.contains(.original) {
                    let original = try await storage.readStaged(.original, of: operation)
                    if record.fileExtension == operation.originalExtension, ContentHash.sha256(of: original) == record.sha256,
                       try await !liveOriginalIsRows(record, in: storage) {
                        publishing = operation.renditions
                    }
                } else {
                    for rendition in operation.renditions {
                        do throws(StorageError) {
                            _ = try await storage.size(of: RenditionKey(rendition, of: record.id, originalExtension: record.fileExtension))
                        } catch .notFound {
                            publishing.insert(rendition)
                        }
                    }
                }
            } catch .notStaged {
                return false  // Finished meanwhile by its own host.
            } catch {
                throw SweepProblem(sentence: "Cannot look at the staged files of utensil \(operation.utensil.uuidString) (\(error))")
            }
        }
        do throws(StorageError) {
            if !publishing.isEmpty {
                try await Self.publishOver(
                    StagedRenditions(
                        utensil: operation.utensil, operation: operation.operation,
                        originalExtension: operation.originalExtension, renditions: publishing),
                    in: storage)
                if publishing.contains(.original) {
                    for other in PhotoFormats.byExtension.keys where other != operation.originalExtension {
                        try await storage.delete(RenditionKey(.original, of: operation.utensil, originalExtension: other))
                    }
                }
            }
            try await storage.discard(operation)
            try await storage.makeChangesDurable()
        } catch .notStaged {
            return false  // Finished meanwhile by its own host.
        } catch {
            throw SweepProblem(
                sentence: "Cannot \(publishing.isEmpty ? "remove" : "put into place") the staged files of utensil \(operation.utensil.uuidString) (\(error))")
        }
        return !publishing.isEmpty
    }

    /// Whether `record`'s live original already is its photo: then its operation was published
    /// (the original goes last), and a staged copy beside it — a publish cut between its two
    /// requests, or a file planted under a staged name — is discarded, never put over the live
    /// thumbnail, preview and grid square.
    private func liveOriginalIsRows(_ record: UtensilRecord, in storage: any RenditionStorage) async throws(StorageError) -> Bool {
        let key = RenditionKey(.original, of: record.id, originalExtension: record.fileExtension)
        do throws(StorageError) {
            return ContentHash.sha256(of: try await storage.read(key, range: nil)) == record.sha256
        } catch .notFound {
            return false
        }
    }

    /// Of these live originals of rows, those of a type other than their row's (a replacement
    /// by a photo of another type, interrupted): only utensils with several are looked up.
    private func replacedOriginals(among originals: [RenditionKey]) async throws(StoreError) -> [RenditionKey] {
        var doomed: [RenditionKey] = []
        for (id, keys) in Dictionary(grouping: originals, by: \.utensil) where keys.count > 1 {
            let record: UtensilRecord?
            do throws(CatalogError) {
                record = try await catalog.utensil(id: id)
            } catch {
                throw StoreError(error)
            }
            guard let record else { continue }
            doomed += keys.filter { $0.fileExtension != record.fileExtension }
        }
        return doomed
    }

    /// `check`'s staged leftovers: the renditions every host's operations left staged, written
    /// at least ``checkGraceSeconds`` before `now` (younger ones may be in flight), as the
    /// storage names them, sorted.
    func stagedLeftovers(now: Date) async throws(StoreError) -> [String] {
        let staged: [HostStagedOperation]
        do throws(StorageError) {
            staged = try await storage.listEveryHostsStaged()
        } catch {
            throw .fileSystem("Cannot list the staged files: \(error).")
        }
        return staged.filter { now.timeIntervalSince($0.written) >= Self.checkGraceSeconds }.flatMap(\.locations).sorted()
    }

    /// What the storage lists; its failure as ``StoreError/fileSystem(_:)``.
    private func listedByStorage<T>(_ body: (any RenditionStorage) async throws(StorageError) -> T) async throws(StoreError) -> T {
        do throws(StorageError) {
            return try await body(storage)
        } catch {
            throw .fileSystem("Cannot list the storage: \(error).")
        }
    }
}
