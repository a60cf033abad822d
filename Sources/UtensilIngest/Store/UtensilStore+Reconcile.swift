import Foundation
import Logging
import UtensilCatalog
import UtensilCore

/// What start-up reconciliation found and mended.
public struct ReconcileReport: Sendable, Equatable {
    /// Half-written files of an interrupted ingest or rejection.
    public var temporariesRemoved = 0
    /// Originals and thumbnails whose row was never committed, and originals a replacement
    /// by a photo of another extension left behind.
    public var orphansRemoved = 0
    /// Photo replacements committed before an interruption whose new files were moved into place.
    public var replacementsFinished = 0
    /// Sidecars whose drop never reached `rejected/` (the drop is still in the inbox).
    public var sidecarsRemoved = 0
    /// Decoder crashes recorded by the fatal-signal handler of the previous run.
    public var decoderCrashesRecorded = 0
    /// Rows whose original or thumbnail is missing (reported, not deleted: a person decides).
    public var rowsMissingFiles: [UUID] = []

    public init() {}

    public var changedAnything: Bool {
        temporariesRemoved + orphansRemoved + sidecarsRemoved + decoderCrashesRecorded + replacementsFinished > 0
    }
}

/// What `utensilctl check` found: the database's integrity, rows whose files are missing and
/// files without a row.
public struct ConsistencyReport: Sendable, Equatable {
    /// `PRAGMA integrity_check`: `["ok"]` when the database is sound.
    public var integrity: [String]
    /// Ids of rows whose original or thumbnail is missing, sorted.
    public var rowsWithoutFiles: [String]
    /// Paths of files in `originals/` and `thumbnails/` without a row, sorted.
    public var filesWithoutRows: [String]
}

/// What `originals/` and `thumbnails/` hold, measured against the rows: the one scan that
/// start-up reconciliation mends and `check` reports.
struct StateScan {
    struct Entry {
        let folder: HeldFolder
        let name: [UInt8]

        var path: RawPath { folder.path.appending(name) }
    }

    /// Half-written files (`.tmp-…`).
    var temporaries: [Entry] = []
    /// Files named like a utensil's whose row is not in the catalog.
    var orphans: [Entry] = []
    /// Names that are not utensild's.
    var foreign: [Entry] = []
    /// Rows with more than one original (a replacement by a photo of another type, interrupted).
    var severalOriginals = Set<UUID>()
    /// Rows whose original or thumbnail is missing, in id order.
    var rowsMissingFiles: [UUID] = []

    init(ids: Set<UUID>, originals: HeldFolder, thumbnails: HeldFolder) throws(SystemError) {
        var filesSeen: [UUID: Int] = [:]
        var originalsSeen = Set<UUID>()
        for folder in [originals, thumbnails] {
            for name in try folder.list() {
                if name.starts(with: Array(FileOps.temporaryPrefix.utf8)) {
                    temporaries.append(Entry(folder: folder, name: name))
                } else if let id = UtensilStore.utensilID(fromFileName: name) {
                    guard ids.contains(id) else {
                        orphans.append(Entry(folder: folder, name: name))
                        continue
                    }
                    filesSeen[id, default: 0] += 1
                    if folder === originals, !originalsSeen.insert(id).inserted { severalOriginals.insert(id) }
                } else {
                    foreign.append(Entry(folder: folder, name: name))
                }
            }
        }
        rowsMissingFiles = ids.filter { filesSeen[$0, default: 0] < 2 }.sorted { $0.uuidString < $1.uuidString }
    }
}

extension UtensilStore {
    /// Brings the state folder back to the invariant after any interruption, `kill -9`
    /// included: every file in `originals/` and `thumbnails/` has its row, committed photo
    /// replacements are finished, and nothing half-written remains. Runs before any ingest
    /// starts, when no ingest can be in flight.
    public func reconcile() throws -> ReconcileReport {
        var report = ReconcileReport()
        try FileOps.makeDirectory(settings.originals)
        try FileOps.makeDirectory(settings.thumbnails)
        try FileOps.makeDirectory(settings.rejected, mode: 0o755)  // shared with the group

        for key in DecoderCrashGuard.takeRecordedCrashes(crashLog: settings.crashLog) where !key.isEmpty {
            let count = try catalog.recordDecoderCrash(sourceKey: key)
            report.decoderCrashesRecorded += 1
            logger.error(
                "utensild died while decoding a drop (crash \(count) for it); after 2 it is quarantined",
                metadata: .journal([.messageID: .id(.decoderCrash), .sourceKey: .string(key)]))
        }

        let (originals, thumbnails) = try folders()
        report.replacementsFinished = try withoutFaults.finishReplacements(originals: originals, thumbnails: thumbnails)

        let scan = try StateScan(ids: try catalog.allIDs(), originals: originals, thumbnails: thumbnails)
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
        report.orphansRemoved += try removeReplacedOriginals(of: scan.severalOriginals, in: originals)
        report.rowsMissingFiles = scan.rowsMissingFiles

        report.temporariesRemoved += try removeProbes()
        let (temporaries, sidecars) = removeRejectedLeftovers()
        report.temporariesRemoved += temporaries
        report.sidecarsRemoved += sidecars

        if report.changedAnything {
            logger.notice(
                "Reconciled the state folder: removed \(report.temporariesRemoved) temporary files, \(report.orphansRemoved) files without a row and \(report.sidecarsRemoved) sidecars without a file",
                metadata: .journal([.messageID: .id(.reconciled)]))
        }
        // A few by name; past that one summary, so that a lost folder does not flood the journal.
        let named = report.rowsMissingFiles.prefix(Self.missingFilesNamedInLog)
        for id in named {
            logger.error("Utensil \(id.uuidString) is missing its original or thumbnail; `utensilctl check` lists it")
        }
        if report.rowsMissingFiles.count > named.count {
            logger.error(
                "\(report.rowsMissingFiles.count - named.count) more utensils are missing their original or thumbnail; `utensilctl check` lists them all")
        }
        return report
    }

    /// `utensilctl check`: the database's integrity, rows whose files are missing, files
    /// without rows. Files younger than ``checkGraceSeconds`` are left out: an ingest in
    /// flight writes its files just before its row. Changes nothing.
    public func check(now: Date = Date()) throws(StoreError) -> ConsistencyReport {
        let integrity = try catalogCall { () throws(CatalogError) in try catalog.integrityCheck() }
        let ids = try catalogCall { () throws(CatalogError) in try catalog.allIDs() }
        let scan: StateScan
        do throws(SystemError) {
            let (originals, thumbnails) = try folders()
            scan = try StateScan(ids: ids, originals: originals, thumbnails: thumbnails)
        } catch {
            throw .fileSystem("Cannot look through the state folder: \(error).")
        }
        let filesWithoutRows = (scan.temporaries + scan.orphans + scan.foreign).filter { entry in
            guard let status = try? entry.folder.status(of: entry.name) else { return false }  // Gone meanwhile.
            let modified = Date(timeIntervalSince1970: Double(status.modificationNanoseconds) / 1e9)
            return now.timeIntervalSince(modified) >= Self.checkGraceSeconds
        }
        return ConsistencyReport(
            integrity: integrity, rowsWithoutFiles: scan.rowsMissingFiles.map(\.uuidString).sorted(),
            filesWithoutRows: filesWithoutRows.map(\.path.description).sorted())
    }

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
                  let record = try catalog.utensil(id: id),
                  name != Self.originalName(id: id, fileExtension: record.fileExtension)
            else { continue }
            try originals.unlink(name)
            removed += 1
        }
        try originals.sync()
        return removed
    }

    /// Start-up's writability probes (`.tmp-probe-…`, made by the configuration's folder
    /// preparation) are left in the state folder and the inbox by a `kill -9` at the wrong
    /// instant (one moved to `rejected/` goes with that folder's temporaries). Only regular
    /// files are removed; in the inbox only names of probes, directly in it.
    private func removeProbes() throws -> Int {
        var removed = try Self.removeRegularFiles(in: try HeldFolder.open(settings.stateDirectory), named: FileOps.temporaryPrefix)
        // A missing inbox is waited for by the daemon.
        if let inbox = try? HeldFolder.open(settings.inbox) {
            removed += try Self.removeRegularFiles(in: inbox, named: Self.probePrefix)
        }
        return removed
    }

    /// Removes the regular files directly in `folder` whose names start with `prefix`.
    private static func removeRegularFiles(in folder: HeldFolder, named prefix: String) throws(SystemError) -> Int {
        var removed = 0
        for name in try folder.list() where name.starts(with: Array(prefix.utf8)) {
            guard let status = try? folder.status(of: name), status.kind == .regular else { continue }
            try folder.unlink(name)
            removed += 1
        }
        return removed
    }

    /// The names of the configuration's writability probes.
    static let probePrefix = FileOps.temporaryPrefix + "probe-"

    /// Temporaries and sidecars without their file in `rejected/`. Group members can write
    /// there: only a regular file is utensild's leftover, and one that cannot be removed is
    /// reported, never a reason to stop.
    private func removeRejectedLeftovers() -> (temporaries: Int, sidecars: Int) {
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
            guard let status = try? rejected.status(of: name), status.kind == .regular else {
                logger.warning("\(shown) is named like a file of utensild's but is not a regular file; leaving it alone")
                continue
            }
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
