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

/// Brings the state folder back to the invariant after any interruption, `kill -9` included:
/// every file in `originals/` and `thumbnails/` has its row, and nothing half-written remains.
/// Runs before any ingest starts, when no ingest can be in flight.
public struct Reconciler: Sendable {
    let settings: IngestSettings
    let catalog: Catalog
    let logger: Logger

    public init(settings: IngestSettings, catalog: Catalog, logger: Logger) {
        self.settings = settings
        self.catalog = catalog
        self.logger = logger
    }

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
                metadata: ["MESSAGE_ID": .string(MessageID.decoderCrash.rawValue), "SOURCE_KEY": .string(key)])
        }

        report.replacementsFinished = try finishReplacements()

        let ids = try catalog.allIDs()
        var filesSeen: [UUID: Int] = [:]
        var originalsSeen = Set<UUID>()
        var severalOriginals = Set<UUID>()
        for folder in [settings.originals, settings.thumbnails] {
            for name in try FileOps.list(folder) {
                let path = folder.appending(name)
                if name.starts(with: Array(FileOps.temporaryPrefix.utf8)) {
                    try FileOps.unlink(path)
                    report.temporariesRemoved += 1
                    continue
                }
                guard let id = Self.utensilID(fromFileName: name) else {
                    logger.warning("\(path) does not belong to utensild; leaving it alone")
                    continue
                }
                if ids.contains(id) {
                    filesSeen[id, default: 0] += 1
                    if folder == settings.originals, !originalsSeen.insert(id).inserted { severalOriginals.insert(id) }
                } else {
                    try FileOps.unlink(path)
                    report.orphansRemoved += 1
                }
            }
            try FileOps.fsyncDirectory(folder)
        }
        report.orphansRemoved += try removeReplacedOriginals(of: severalOriginals)
        report.rowsMissingFiles = ids.filter { filesSeen[$0, default: 0] < 2 }.sorted { $0.uuidString < $1.uuidString }

        // Start-up's writability probe (`.tmp-probe-…`, made by the configuration's folder
        // preparation) is left in the state folder itself by a `kill -9` at the wrong instant.
        for name in try FileOps.list(settings.stateDirectory) where name.starts(with: Array(FileOps.temporaryPrefix.utf8)) {
            let path = settings.stateDirectory.appending(name)
            guard let status = try? FileOps.lstat(path), status.kind == .regular else { continue }
            try FileOps.unlink(path)
            report.temporariesRemoved += 1
        }

        // Group members can write into rejected/: only a regular file is utensild's leftover,
        // and one that cannot be removed is reported, never a reason to stop.
        let rejectedNames = Set(try FileOps.list(settings.rejected))
        let suffix = Array(RejectionSidecar.suffix.utf8)
        for name in rejectedNames {
            let path = settings.rejected.appending(name)
            let isTemporary = name.starts(with: Array(FileOps.temporaryPrefix.utf8))
            // (A rejected file that is itself named `….error.json` has a sidecar of its own.)
            let isLoneSidecar = name.count > suffix.count && Array(name.suffix(suffix.count)) == suffix
                && !rejectedNames.contains(Array(name.dropLast(suffix.count))) && !rejectedNames.contains(name + suffix)
            guard isTemporary || isLoneSidecar else { continue }
            guard let status = try? FileOps.lstat(path), status.kind == .regular else {
                logger.warning("\(FileNameEscaping.escaped(path.bytes)) is named like a file of utensild's but is not a regular file; leaving it alone")
                continue
            }
            do {
                try FileOps.unlink(path)
                if isTemporary { report.temporariesRemoved += 1 } else { report.sidecarsRemoved += 1 }
            } catch {
                logger.warning("Cannot remove \(FileNameEscaping.escaped(path.bytes)) (\(error)); leaving it")
            }
        }

        if report.changedAnything {
            logger.notice(
                "Reconciled the state folder: removed \(report.temporariesRemoved) temporary files, \(report.orphansRemoved) files without a row and \(report.sidecarsRemoved) sidecars without a file",
                metadata: ["MESSAGE_ID": .string(MessageID.reconciled.rawValue)])
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

    /// Finishes the photo replacements that were committed before an interruption: a temporary
    /// original (`.tmp-replace-<UUID>.<ext>`) whose extension and hash are its row's moves into
    /// place with its thumbnail. Every other temporary is removed with the rest.
    func finishReplacements() throws -> Int {
        let originals = try HeldFolder.open(settings.originals)
        let thumbnails = try HeldFolder.open(settings.thumbnails)
        var finished = 0
        for name in try originals.list() {
            guard let (id, fileExtension) = PhotoReplacement.parse(name),
                  let record = try catalog.utensil(id: id), record.fileExtension == fileExtension,
                  let bytes = FileManager.default.contents(atPath: settings.originals.appending(name).description),
                  ContentHash.sha256(of: bytes) == record.sha256
            else { continue }
            try PhotoReplacement.moveIntoPlace(
                id: id, fileExtension: fileExtension, oldExtension: fileExtension, originals: originals,
                thumbnails: thumbnails, faults: FaultInjection())
            logger.notice(
                "Finished replacing the photo of \(record.name), which had been committed before an interruption",
                metadata: ["UTENSIL_ID": .string(id.uuidString)])
            finished += 1
        }
        return finished
    }

    /// Removes each original of these utensils whose extension is not its row's (the old
    /// photo of a replacement by one of another type, interrupted before its removal).
    func removeReplacedOriginals(of ids: Set<UUID>) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        var removed = 0
        for name in try FileOps.list(settings.originals) {
            guard let id = Self.utensilID(fromFileName: name), ids.contains(id),
                  let record = try catalog.utensil(id: id),
                  name != Array("\(id.uuidString).\(record.fileExtension)".utf8)
            else { continue }
            try FileOps.unlink(settings.originals.appending(name))
            removed += 1
        }
        try FileOps.fsyncDirectory(settings.originals)
        return removed
    }

    /// Rows missing files that start-up names one by one in the journal.
    static let missingFilesNamedInLog = 20

    /// `<UUID>.<ext>` → the UUID.
    static func utensilID(fromFileName name: [UInt8]) -> UUID? {
        guard let dot = name.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        return UUID(uuidString: name[..<dot].lossyString)
    }
}
