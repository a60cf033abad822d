import Foundation
import Logging
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// What start-up reconciliation found and mended.
public struct ReconcileReport: Sendable, Equatable {
    /// Half-written files of an interrupted ingest, rejection or web upload.
    public var temporariesRemoved = 0
    /// Originals, thumbnails and previews without a row, and originals a replacement by a photo of
    /// another extension left behind (found only by a look through everything).
    public var orphansRemoved = 0
    /// Operations whose staged files were put into place: committed ingests and photo
    /// replacements, and deletes that were not committed.
    public var rolledForward = 0
    /// Operations whose staged files were removed: ingests that were not committed, and
    /// deletes that were.
    public var rolledBack = 0
    /// Whether `originals/`, `thumbnails/` and `previews/` were looked through against every row (only
    /// when `staging/` did not exist yet: a state folder of an earlier version, or a new one).
    public var lookedThroughEverything = false
    /// Sidecars whose drop never reached `rejected/` (the drop is still in the inbox).
    public var sidecarsRemoved = 0
    /// Decoder crashes recorded by the fatal-signal handler of the previous run.
    public var decoderCrashesRecorded = 0
    /// Rows whose original, thumbnail or preview is missing (reported, not deleted: a person
    /// decides; `rethumb --missing` makes a thumbnail or preview again).
    public var rowsMissingFiles: [UUID] = []
    /// Operations and steps left as they were because of an error that is not absence (an
    /// unreadable file, a busy catalog), each logged with ``MessageID/recoveryLeft``: the next
    /// start tries them again.
    public var leftForNextStart = 0
    /// Files an older version staged directly in `staging/`, moved into this host's folder
    /// there to be recovered with its own.
    public var olderStagedAdopted = 0

    public init() {}

    public var changedAnything: Bool {
        temporariesRemoved + orphansRemoved + sidecarsRemoved + decoderCrashesRecorded + rolledForward + rolledBack > 0
    }
}

/// What `utensilctl check` found: the database's integrity, rows whose files are missing and
/// files without a row.
public struct ConsistencyReport: Sendable, Equatable {
    /// `PRAGMA integrity_check`: `["ok"]` when the database is sound.
    public var integrity: [String]
    /// Ids of rows whose original, thumbnail or preview is missing, sorted.
    public var rowsWithoutFiles: [String]
    /// Paths of files in `originals/`, `thumbnails/` and `previews/` without a row, sorted.
    public var filesWithoutRows: [String]
    /// Paths of files of cut-off web uploads left in the inbox, sorted.
    public var uploadLeftovers: [String] = []
    /// What operations of any host left staged (a crash, an upload that landed late): how the
    /// storage names each staged rendition (a path, `s3://BUCKET/KEY`), sorted. The sweeper
    /// finishes or removes them once they are an hour old.
    public var stagedLeftovers: [String] = []
}

/// What `originals/`, `thumbnails/` and `previews/` hold, measured against the rows: the one scan that
/// start-up reconciliation mends and `check` reports.
struct StateScan {
    struct Entry {
        let folder: HeldFolder
        let name: [UInt8]

        var path: RawPath { folder.path.appending(name) }
    }

    /// Half-written files (`.tmp-…`).
    var temporaries: [Entry] = []
    /// Files of operations in flight, or left by a crash for the next start.
    var staged: [Entry] = []
    /// Files named like a utensil's whose row is not in the catalog.
    var orphans: [Entry] = []
    /// Names that are not utensild's.
    var foreign: [Entry] = []
    /// Rows with more than one original (a replacement by a photo of another type, interrupted).
    var severalOriginals = Set<UUID>()
    /// Rows whose original, thumbnail or preview is missing, in id order.
    var rowsMissingFiles: [UUID] = []

    /// `optional` holds renditions a row may lack (`squares/`): their files without a row are
    /// orphans like any other, but a row without one is not missing files.
    init(
        ids: Set<UUID>, originals: HeldFolder, thumbnails: HeldFolder, previews: HeldFolder, optional: [HeldFolder] = [],
        staging: HeldFolder? = nil
    ) throws(SystemError) {
        if let staging {
            for name in try staging.list() { staged.append(Entry(folder: staging, name: name)) }
        }
        var filesSeen: [UUID: Int] = [:]
        var originalsSeen = Set<UUID>()
        let folders = [originals, thumbnails, previews]
        for folder in folders + optional {
            for name in try folder.list() {
                if name.starts(with: Array(FileOps.temporaryPrefix.utf8)) {
                    temporaries.append(Entry(folder: folder, name: name))
                } else if let id = UtensilStore.utensilID(fromFileName: name) {
                    guard ids.contains(id) else {
                        orphans.append(Entry(folder: folder, name: name))
                        continue
                    }
                    if !optional.contains(where: { $0 === folder }) { filesSeen[id, default: 0] += 1 }
                    if folder === originals, !originalsSeen.insert(id).inserted { severalOriginals.insert(id) }
                } else {
                    foreign.append(Entry(folder: folder, name: name))
                }
            }
        }
        rowsMissingFiles = ids.filter { filesSeen[$0, default: 0] < folders.count }.sorted { $0.uuidString < $1.uuidString }
    }
}

extension UtensilStore {
    /// Brings the state folder back to the invariant after any interruption, `kill -9`
    /// included: every file in `originals/`, `thumbnails/` and `previews/` has its row, every row has its
    /// files (unless a person removed them), and nothing half-written remains. Only what was
    /// in flight can have been left, and that is all in `staging/` (see `UtensilStore+Staging`):
    /// so only `staging/` is looked at, not every file and every row — except once, for a
    /// state folder without `staging/` yet. Runs before any ingest starts, when no operation
    /// can be in flight.
    public func reconcile(now: Date = Date()) throws -> ReconcileReport {
        var report = ReconcileReport()
        try FileOps.makeDirectory(settings.originals)
        try FileOps.makeDirectory(settings.thumbnails)
        try FileOps.makeDirectory(settings.previews)
        try FileOps.makeDirectory(settings.rejected, mode: 0o755)  // shared with the group

        recordInterruptedDecodes(&report)

        if !FileOps.exists(settings.stagingRoot) {
            try lookThroughEverything(&report)
            try FileOps.makeDirectory(settings.stagingRoot)  // Only after: a crash before it looks again.
        }
        try FileOps.makeDirectory(settings.staging)  // This host's own folder in it.
        adoptOlderStaging(&report)
        reconcileStaging(&report)

        report.temporariesRemoved += try removeProbes(now: now)
        report.temporariesRemoved += removeUploadLeftovers(now: now)
        let (temporaries, sidecars) = removeRejectedLeftovers(now: now)
        report.temporariesRemoved += temporaries
        report.sidecarsRemoved += sidecars

        if report.changedAnything {
            logger.notice(
                "Reconciled the state folder: finished \(report.rolledForward) and undid \(report.rolledBack) interrupted operations, removed \(report.temporariesRemoved) temporary files, \(report.orphansRemoved) files without a row and \(report.sidecarsRemoved) sidecars without a file",
                metadata: .journal([.messageID: .id(.reconciled)]))
        }
        // A few by name; past that one summary, so that a lost folder does not flood the journal.
        let named = report.rowsMissingFiles.prefix(Self.missingFilesNamedInLog)
        for id in named {
            logger.error("Utensil \(id.uuidString) is missing its original, thumbnail or preview; `utensilctl check` lists it")
        }
        if report.rowsMissingFiles.count > named.count {
            logger.error(
                "\(report.rowsMissingFiles.count - named.count) more utensils are missing their original, thumbnail or preview; `utensilctl check` lists them all")
        }
        return report
    }

    /// The look through `originals/`, `thumbnails/` and `previews/` against every row, for a state folder
    /// of a version that wrote files there before their rows: temporaries and files without a
    /// row are removed, rows without files named.
    private func lookThroughEverything(_ report: inout ReconcileReport) throws {
        report.lookedThroughEverything = true
        let originals = try HeldFolder.open(settings.originals)
        let thumbnails = try HeldFolder.open(settings.thumbnails)
        let previews = try HeldFolder.open(settings.previews)
        let scan = try StateScan(
            ids: try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.allIDs() }, originals: originals, thumbnails: thumbnails, previews: previews)
        for entry in scan.temporaries {
            try entry.folder.unlink(entry.name)
            report.temporariesRemoved += 1
        }
        for entry in scan.orphans {
            try entry.folder.unlink(entry.name)
            report.orphansRemoved += 1
        }
        for entry in scan.foreign {
            logger.warning("\(entry.path) does not belong to utensild; leaving it alone")
        }
        try originals.sync()
        try thumbnails.sync()
        try previews.sync()
        report.orphansRemoved += try removeReplacedOriginals(of: scan.severalOriginals, in: originals)
        report.rowsMissingFiles = scan.rowsMissingFiles
    }

    /// `utensilctl check`: the database's integrity, rows whose files are missing, files
    /// without rows, renditions any host left staged, cut-off uploads in the inbox, looking
    /// through everything. Files younger
    /// than ``checkGraceSeconds`` are left out: they may be an operation in flight. Changes nothing.
    ///
    /// The local folder is looked through file by file (temporaries, foreign names, `staging/`,
    /// ages); any other storage through its listing (``checkThroughListing(integrity:ids:)``).
    public func check(now: Date = Date()) async throws(StoreError) -> ConsistencyReport {
        let integrity = try await fromCatalog { () async throws(CatalogError) in try await catalog.integrityCheck() }
        let ids = try await fromCatalog { () async throws(CatalogError) in try await catalog.allIDs() }
        guard storage is LocalFolderStorage else {
            var report = try await checkThroughListing(integrity: integrity, ids: ids, now: now)
            report.stagedLeftovers = try await stagedLeftovers(now: now)
            do throws(SystemError) {
                report.uploadLeftovers = try uploadLeftovers().filter {
                    now.timeIntervalSince(Date(timeIntervalSince1970: Double($0.status.modificationNanoseconds) / 1e9)) >= Self.checkGraceSeconds
                }.map(\.entry.path.description).sorted()
            } catch {
                throw .fileSystem("Cannot look through the inbox: \(error).")
            }
            return report
        }
        let scan: StateScan
        do throws(SystemError) {
            let folders = try stateFolders()
            let squares = try? HeldFolder.open(settings.layout.folder(of: .square))  // Made at the first start that makes squares.
            scan = try StateScan(
                ids: ids, originals: folders.originals, thumbnails: folders.thumbnails, previews: folders.previews,
                optional: squares.map { [$0] } ?? [], staging: folders.staging)
        } catch {
            throw .fileSystem("Cannot look through the state folder: \(error).")
        }
        let settled = { (status: FileStatus) in
            now.timeIntervalSince(Date(timeIntervalSince1970: Double(status.modificationNanoseconds) / 1e9)) >= Self.checkGraceSeconds
        }
        // Staged renditions are reported as such (``stagedLeftovers(now:)``), anything else in staging/ here.
        let strays = scan.staged.filter { StagedName(parsing: $0.name) == nil }
        let filesWithoutRows = (scan.temporaries + scan.orphans + scan.foreign + strays).filter { entry in
            guard let status = try? entry.folder.status(of: entry.name) else { return false }  // Gone meanwhile.
            return settled(status)
        }
        let uploads: [(entry: StateScan.Entry, status: FileStatus)]
        do throws(SystemError) {
            uploads = try uploadLeftovers()
        } catch {
            throw .fileSystem("Cannot look through the inbox: \(error).")
        }
        return ConsistencyReport(
            integrity: integrity, rowsWithoutFiles: scan.rowsMissingFiles.map(\.uuidString).sorted(),
            filesWithoutRows: filesWithoutRows.map(\.path.description).sorted(),
            uploadLeftovers: uploads.filter { settled($0.status) }.map(\.entry.path.description).sorted(),
            stagedLeftovers: try await stagedLeftovers(now: now))
    }

    /// `check` over a storage other than the local folder, through its listing of live
    /// renditions: rows lacking their original, thumbnail or preview (a grid square may be missing), and renditions (named by the storage,
    /// `s3://BUCKET/KEY`) of no row. The rows are read again after the listing, so that a
    /// utensil committed and published meanwhile is not taken for an orphan; and renditions
    /// written less than ``checkGraceSeconds`` before `now` are left out, so that a new
    /// utensil's, put under their live keys just before its commit, are not either. Objects
    /// whose names utensild never writes (``RenditionStorage/listForeign()``) are files without
    /// rows too, as a folder's foreign names are, and like them are never removed.
    private func checkThroughListing(integrity: [String], ids: Set<UUID>, now: Date) async throws(StoreError) -> ConsistencyReport {
        let renditions: [Rendition] = [.original, .thumbnail, .preview]
        var live: [RenditionKey] = []
        var young: Set<RenditionKey> = []
        do throws(StorageError) {
            for rendition in renditions + [.square] {  // A missing grid square is no missing file.
                let listed = try await storage.listDated(rendition)
                live += listed.map(\.key)
                young.formUnion(listed.filter { now.timeIntervalSince($0.written) < Self.checkGraceSeconds }.map(\.key))
            }
        } catch {
            throw .fileSystem("Cannot list the storage: \(error).")
        }
        let idsAfter = try await fromCatalog { () async throws(CatalogError) in try await catalog.allIDs() }
        var seen: [UUID: Set<Rendition>] = [:]
        for key in live where key.rendition.isRequired { seen[key.utensil, default: []].insert(key.rendition) }
        let rowsWithoutFiles = ids.filter { (seen[$0]?.count ?? 0) < renditions.count }.map(\.uuidString).sorted()
        let foreign: [ForeignObject]
        do throws(StorageError) {
            foreign = try await storage.listForeign()
        } catch {
            throw .fileSystem("Cannot list the storage: \(error).")
        }
        let withoutRows = (live.filter { !idsAfter.contains($0.utensil) && !young.contains($0) }.map { storage.url(of: $0) }
            + foreign.filter { now.timeIntervalSince($0.written) >= Self.checkGraceSeconds }.map(\.location)).sorted()
        return ConsistencyReport(integrity: integrity, rowsWithoutFiles: rowsWithoutFiles, filesWithoutRows: withoutRows)
    }

    /// How old a temporary in a state folder that other hosts share must be before start-up
    /// removes it: their writes there take a moment, and their clocks (which set the file's
    /// time on NFS) may be some minutes off this host's.
    static let sharedTemporaryGraceSeconds: TimeInterval = 15 * 60

    /// How old a file without a row must be before `check` reports it.
    static let checkGraceSeconds: TimeInterval = 60

    /// Rows missing files that start-up names one by one in the journal.
    static let missingFilesNamedInLog = 20

    /// Removes each original of these utensils whose extension is not its row's (the old
    /// photo of a replacement by one of another type, interrupted before its removal).
    private func removeReplacedOriginals(of ids: Set<UUID>, in originals: HeldFolder) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        var removed = 0
        for name in try originals.list() {
            guard let id = Self.utensilID(fromFileName: name), ids.contains(id),
                  let record = try CatalogAwait.run({ [catalog] () async throws(CatalogError) in try await catalog.utensil(id: id) }),
                  name != Self.originalName(id: id, fileExtension: record.fileExtension)
            else { continue }
            try originals.unlink(name)
            removed += 1
        }
        try originals.sync()
        return removed
    }

    /// Start-up's writability probe (`.tmp-probe-…`, made by the configuration's folder
    /// preparation) and the temporary of a `last-stop` write are left in the state folder
    /// itself by a `kill -9` at the wrong instant (the preparation itself removes those of
    /// killed runs from the inbox and `rejected/`). When other hosts share the state folder,
    /// a temporary younger than ``sharedTemporaryGraceSeconds`` may be another host's write
    /// in flight: it is left for a later start.
    private func removeProbes(now: Date) throws -> Int {
        let state = try HeldFolder.open(settings.stateDirectory)
        var removed = 0
        for name in try state.list() where name.starts(with: Array(FileOps.temporaryPrefix.utf8)) {
            guard let status = try? state.status(of: name), status.kind == .regular else { continue }
            if mayBeAnotherHosts(status, now: now) { continue }
            try state.unlink(name)
            removed += 1
        }
        return removed
    }

    /// Whether a leftover-looking file may be another host's write in flight: when other hosts
    /// share the folders, one younger than ``sharedTemporaryGraceSeconds``.
    func mayBeAnotherHosts(_ status: FileStatus, now: Date) -> Bool {
        guard settings.sharesStateFolder else { return false }
        let age = now.timeIntervalSince(Date(timeIntervalSince1970: Double(status.modificationNanoseconds) / 1e9))
        return age < Self.sharedTemporaryGraceSeconds
    }

    /// Temporaries and sidecars without their file in `rejected/`. Group members can write
    /// there: only a regular file is utensild's leftover, and one that cannot be removed is
    /// reported, never a reason to stop. When other hosts share `rejected/` (one inbox watched
    /// by several hosts), a young one is left: it may be another host's rejection in flight;
    /// but this host's own temporaries (named after it, ``HostFileNames/isOwnTemporary(_:)``)
    /// are removed whatever their age, as nothing of this host's is in flight at its start.
    private func removeRejectedLeftovers(now: Date) -> (temporaries: Int, sidecars: Int) {
        var removed = (temporaries: 0, sidecars: 0)
        let rejected: HeldFolder
        let names: Set<[UInt8]>
        do throws(SystemError) {
            rejected = try HeldFolder.open(settings.rejected)
            names = Set(try rejected.list())
        } catch {
            logger.warning("Cannot look for leftovers in \(settings.rejected) (\(error)); leaving it")
            return removed
        }
        let suffix = Array(RejectionSidecar.suffix.utf8)
        for name in names {
            let shown = FileNameEscaping.escaped(rejected.path.appending(name).bytes)
            let isTemporary = name.starts(with: Array(FileOps.temporaryPrefix.utf8))
            // (A rejected file that is itself named `….error.json` has a sidecar of its own.)
            let isLoneSidecar = name.count > suffix.count && Array(name.suffix(suffix.count)) == suffix
                && !names.contains(Array(name.dropLast(suffix.count))) && !names.contains(name + suffix)
            guard isTemporary || isLoneSidecar else { continue }
            let status: FileStatus
            do throws(SystemError) {
                status = try rejected.status(of: name)
            } catch {
                if !error.isNotFound { logger.warning("Cannot look at \(shown) (\(error)); leaving it") }
                continue
            }
            guard status.kind == .regular else {
                logger.warning("\(shown) is named like a file of utensild's but is not a regular file; leaving it alone")
                continue
            }
            if mayBeAnotherHosts(status, now: now) && !(isTemporary && settings.ownFiles.isOwnTemporary(name)) { continue }
            do {
                try rejected.unlink(name)
                if isTemporary { removed.temporaries += 1 } else { removed.sidecars += 1 }
            } catch {
                logger.warning("Cannot remove \(shown) (\(error)); leaving it")
            }
        }
        return removed
    }
}

extension UtensilStore {
    /// Counts a decoder crash for each drop an earlier process was decoding when it died: those
    /// a fatal-signal handler blamed, and the others too when systemd said the run was ended by
    /// the OOM killer, the watchdog or a stop time-out (``LastStop``). Each is recorded in the
    /// catalog before its slot is cleared, and the word from systemd is removed last: a catalog
    /// that cannot record them (busy, failing) stops the step with a journal line and leaves
    /// the rest for the next start, so that a poison file is still quarantined in the end.
    func recordInterruptedDecodes(_ report: inout ReconcileReport) {
        let state: HeldFolder
        let lastStop: LastStop?
        do throws(SystemError) {
            state = try HeldFolder.open(settings.stateDirectory)
            lastStop = try LastStop.read(in: state, as: settings.ownFiles)
        } catch {
            return recoveryLeft(.decoderCrashes, "Cannot read how the previous run ended (\(error))", &report)
        }
        for interrupted in DecoderCrashGuard.interruptedDecodes() {
            if !interrupted.key.isEmpty && (interrupted.blamed || lastStop?.blamesInterruptedDecodes == true) {
                let count: Int
                do {
                    let key = interrupted.key
                    count = try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.recordDecoderCrash(sourceKey: key) }
                } catch {
                    return recoveryLeft(
                        .decoderCrashes, "Cannot record a decoder crash in the catalog (\(error))", &report,
                        [.sourceKey: .string(interrupted.key)])
                }
                report.decoderCrashesRecorded += 1
                logger.error(
                    "utensild died while decoding a drop (crash \(count) for it); after 2 it is quarantined",
                    metadata: .journal([.messageID: .id(.decoderCrash), .sourceKey: .string(interrupted.key)]))
            }
            interrupted.forget()
        }
        do throws(SystemError) {
            try LastStop.clear(in: state, as: settings.ownFiles)
        } catch {
            recoveryLeft(.decoderCrashes, "Cannot remove \(settings.stateDirectory.appending(settings.ownFiles.lastStop)) (\(error))", &report)
        }
    }

    /// The steps of start-up recovery that stop on an error (``recoveryLeft(_:_:_:_:)``).
    enum RecoveryStep: String {
        case staging
        case olderStaging = "older-staging"
        case decoderCrashes = "decoder-crashes"
    }

    /// Logs that a step of start-up recovery stopped on an error that is not absence, and
    /// counts it: what it was mending is left as it is, for the next start or a person.
    func recoveryLeft(
        _ step: RecoveryStep, _ what: String, _ report: inout ReconcileReport,
        _ fields: KeyValuePairs<JournalField, Logger.MetadataValue> = [:]
    ) {
        report.leftForNextStart += 1
        var metadata = Logger.Metadata.journal(fields)
        metadata[JournalField.messageID.rawValue] = .id(.recoveryLeft)
        metadata[JournalField.recoveryStep.rawValue] = .string(step.rawValue)
        logger.error("\(what); left as it is for the next start (`utensilctl check` lists what stays)", metadata: metadata)
    }
}
