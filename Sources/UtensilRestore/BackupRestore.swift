import Foundation
import Glibc
import Logging
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilStorage
import UtensilStore

/// `utensild restore BACKUP`: loads a backup made by `utensilctl backup` into an empty catalog
/// and state folder. The caller holds the state lock (no daemon runs on the state folder).
///
/// Nothing is installed until everything is verified: `backup.json` must be one this version
/// reads; the catalog's bytes must match its checksum, and the file is then read without
/// trusting it (``CatalogFile/inspect(path:rules:)``: read-only and defensive, its schema
/// exactly utensild's, never run; every row checked under ``BackupRowRules``, the rules a
/// drop meets) and must agree with the manifest's counts; every file of every utensil must
/// be listed (an original with the catalog's own checksum) and its bytes match as they are
/// copied. No path is made from the catalog's values before its row passed. The backup's
/// file itself is never installed: its rows go into a catalog this version makes with its
/// own migrations. Files are copied into `.restoring-<folder>` folders beside their places
/// and, with a SQLite catalog, the new catalog written as `.restoring-utensils.sqlite`, all
/// made durable; then the folders are renamed into place and the catalog last. A restore
/// that fails removes what it wrote; one that is interrupted leaves `.restoring-*`, which the
/// next restore removes.
///
/// Into another backend (PostgreSQL) the same checked rows are loaded into that catalog,
/// which must be empty, in one transaction (``CatalogLoading/load(_:)``) once the folders are
/// in place; if that fails, the folders are emptied again and nothing was installed.
public struct BackupRestore: Sendable {
    public let settings: IngestSettings
    let logger: Logger

    public init(settings: IngestSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    static let restoringPrefix = ".restoring-"

    /// Restores the backup at `backupPath` into the SQLite catalog in the state folder;
    /// `progress` hears (files done, files in all).
    public func restore(from backupPath: RawPath, progress: (Int, Int) -> Void) throws(RestoreError) -> RestoreSummary {
        let target = try open(backupPath)
        try ensureEmpty(target.state)
        try ensureEmptyCatalogFile()
        removeLeftovers(in: target.state)
        do throws(RestoreError) {
            let staged = try stage(target, progress: progress)
            try writeCatalog(staged.contents.rows, in: target.state, owner: target.owner)
            try installFolders(in: target.state)
            try installCatalogFile(in: target.state, owner: target.owner)
            removeLeftovers(in: target.state)
            return finished(staged, from: backupPath)
        } catch {
            removeLeftovers(in: target.state)
            throw error
        }
    }

    /// Restores the backup at `backupPath` into `catalog` (another backend than the state
    /// folder's SQLite file: PostgreSQL), shown in messages as `shownCatalog`, and the files
    /// into the state folder; `progress` hears (files done, files in all).
    public func restore(
        from backupPath: RawPath, into catalog: any CatalogBackend, shownAs shownCatalog: String, progress: (Int, Int) -> Void
    ) async throws(RestoreError) -> RestoreSummary {
        let target = try open(backupPath)
        try ensureEmpty(target.state)
        let held: Int
        do throws(CatalogError) {
            held = try await catalog.countAll()
        } catch {
            throw .catalogFailed(catalog: shownCatalog, problem: error.description)
        }
        if held > 0 { throw .catalogNotEmpty(catalog: shownCatalog, utensils: held) }
        removeLeftovers(in: target.state)
        do throws(RestoreError) {
            let staged = try stage(target, progress: progress)
            try installFolders(in: target.state)
            do throws(CatalogError) {
                try await catalog.load(staged.contents.rows)
            } catch {
                emptyFolders(in: target.state)
                if case .notEmpty(let utensils) = error { throw .catalogNotEmpty(catalog: shownCatalog, utensils: utensils) }
                throw .catalogFailed(catalog: shownCatalog, problem: error.description)
            }
            removeLeftovers(in: target.state)
            return finished(staged, from: backupPath)
        } catch {
            removeLeftovers(in: target.state)
            throw error
        }
    }

    /// The backup, its manifest, the state folder and who should own what is installed in it.
    struct Target {
        let backup: HeldFolder
        let manifest: BackupManifest
        let state: HeldFolder
        let owner: FileOwner?
    }

    /// What ``inspect(_:)`` verified (and ``stage(_:progress:)`` put beside its place).
    struct Staged {
        let contents: CatalogFile.Contents
        let expected: [ExpectedFile]
    }

    /// A file of a utensil as `backup.json` lists it: in which folder of ``BackupFolder/all``,
    /// its name there and its measures.
    struct ExpectedFile {
        let folder: Int
        let name: [UInt8]
        let file: BackupManifest.File
        let utensil: UUID
        let originalExtension: String

        /// The rendition its folder holds.
        var rendition: Rendition { Rendition.allCases[folder] }
    }

    func open(_ backupPath: RawPath) throws(RestoreError) -> Target {
        let backup: HeldFolder
        do {
            backup = try HeldFolder.open(backupPath)
        } catch {
            if error.isNotFound { throw .noSuchFolder(backupPath.description) }
            throw .fileSystem(error)
        }
        let manifest = try readManifest(in: backup)
        let state = try Self.fileSystem { () throws(SystemError) in try HeldFolder.open(settings.stateDirectory) }
        let owner = try Self.fileSystem { () throws(SystemError) in try Self.owner(of: state) }
        if let owner {
            // The lock this process took (and may have created) is the daemon's to take next.
            _ = Self.withCString(Array("utensild.lock".utf8)) {
                fchownat(state.descriptor, $0, owner.uid, owner.gid, AT_SYMLINK_NOFOLLOW)
            }
        }
        return Target(backup: backup, manifest: manifest, state: state, owner: owner)
    }

    func finished(_ staged: Staged, from backupPath: RawPath) -> RestoreSummary {
        let contents = staged.contents, expected = staged.expected
        let trash = contents.utensils.filter(\.trashed).count
        let summary = RestoreSummary(
            utensils: contents.utensils.count - trash, trash: trash, categories: contents.categoryCount,
            files: expected.count, bytes: expected.reduce(0) { $0 + $1.file.bytes },
            missing: contents.utensils.count * BackupFolder.all.count - expected.count,
            migrated: contents.needsMigration)
        logger.notice("Restored \(summary.utensils) utensils and \(summary.trash) in the trash from \(backupPath)")
        return summary
    }

    // MARK: Reading the backup

    private func readManifest(in backup: HeldFolder) throws(RestoreError) -> BackupManifest {
        let shown = backup.path.appending(BackupManifest.fileName).description
        let bytes: [UInt8]?
        do {
            bytes = try FileOps.readRegularFile(Array(BackupManifest.fileName.utf8), in: backup, limit: 1 << 30)
        } catch {
            if error.isNotFound { throw .notABackup(backup.path.description) }
            throw .fileSystem(error)
        }
        guard let bytes else { throw .notABackup(backup.path.description) }
        let manifest: BackupManifest
        do {
            manifest = try BackupManifest.decode(bytes)
        } catch {
            throw .badManifest(path: shown, problem: "it is not a backup.json this utensild can read")
        }
        guard manifest.format == BackupManifest.formatName, manifest.formatVersion == BackupManifest.currentFormatVersion else {
            throw .badManifest(
                path: shown,
                problem: "its format is \(VisibleText.escaped(manifest.format)) version \(manifest.formatVersion), which this utensild does not know")
        }
        guard manifest.catalog.path == BackupManifest.catalogFileName else {
            throw .badManifest(path: shown, problem: "its catalog is not \(BackupManifest.catalogFileName)")
        }
        return manifest
    }

    /// The files the catalog's utensils have, each as `backup.json` lists it; a listing that
    /// differs from the catalog in any way is refused.
    private func expectedFiles(_ manifest: BackupManifest, _ contents: CatalogFile.Contents, shown: String)
        throws(RestoreError) -> [ExpectedFile]
    {
        var listed: [String: BackupManifest.File] = [:]
        for file in manifest.files where listed.updateValue(file, forKey: file.path) != nil {
            throw .badManifest(path: shown, problem: "it lists \(VisibleText.escaped(file.path)) twice")
        }
        let missing = Set(manifest.missing)
        // A folder of files that can be made again which a backup does not mention at all was
        // added after it was made (previews, say): its files are made again, as missing ones.
        let mentioned = Set((manifest.files.map(\.path) + manifest.missing).compactMap { $0.split(separator: "/").first.map(String.init) })
        var expected: [ExpectedFile] = []
        for utensil in contents.utensils {
            for (index, folder) in BackupFolder.all.enumerated() {
                let name = folder.fileName(utensil.id, utensil.fileExtension)
                let path = folder.name + "/" + name
                if let file = listed.removeValue(forKey: path) {
                    if folder.holdsOriginals && file.sha256 != utensil.sha256 {
                        throw .inconsistent(path: shown, problem: "its checksum of \(path) is not the one the catalog holds")
                    }
                    expected.append(
                        ExpectedFile(folder: index, name: Array(name.utf8), file: file, utensil: utensil.id, originalExtension: utensil.fileExtension))
                } else if folder.holdsOriginals || (mentioned.contains(folder.name) && !missing.contains(path)) {
                    throw .inconsistent(path: shown, problem: "it does not list \(path), a file of utensil \(utensil.id.uuidString)")
                }
            }
        }
        if let stray = listed.keys.sorted().first {
            throw .inconsistent(path: shown, problem: "it lists \(VisibleText.escaped(stray)), which no utensil of the catalog has")
        }
        return expected
    }

    // MARK: Installing

    static let catalogName = Array(BackupManifest.catalogFileName.utf8)
    /// The catalog this restore writes, beside its place.
    static let stagedCatalog = Array((restoringPrefix + BackupManifest.catalogFileName).utf8)
    /// The backup's catalog, copied to be read (never installed).
    static let backupCatalogCopy = Array((restoringPrefix + "backup-" + BackupManifest.catalogFileName).utf8)

    /// Verifies the backup's manifest and catalog: the catalog copied beside its place (its
    /// checksum checked) and read there without trusting it, every row checked, its counts and
    /// its files measured against the manifest. Reads no photo and makes no path from the
    /// catalog's values before its row passed.
    func inspect(_ target: Target) throws(RestoreError) -> Staged {
        let (manifest, backup, state, owner) = (target.manifest, target.backup, target.state, target.owner)
        let shownManifest = backup.path.appending(BackupManifest.fileName).description
        // The catalog: copied (and so read once, its checksum checked) beside its place, then
        // read there without trusting it, before any path is made from what it holds.
        let (catalogName, copied) = (Self.catalogName, Self.backupCatalogCopy)
        try copy(catalogName, from: backup, to: copied, in: state, expecting: manifest.catalog, owner: owner)
        let contents: CatalogFile.Contents
        do {
            contents = try CatalogFile.inspect(path: state.path.appending(copied).description, rules: BackupRowRules())
        } catch {
            throw .badCatalog(path: backup.path.appending(catalogName).description, problem: error)
        }
        let trash = contents.utensils.filter(\.trashed).count
        for (what, listed, found) in [
            ("utensils", manifest.counts.utensils, contents.utensils.count - trash), ("utensils in the trash", manifest.counts.trash, trash),
            ("categories", manifest.counts.categories, contents.categoryCount), ("files", manifest.counts.files, manifest.files.count),
        ] where listed != found {
            throw .inconsistent(path: shownManifest, problem: "it counts \(listed) \(what), the backup holds \(found)")
        }
        return Staged(contents: contents, expected: try expectedFiles(manifest, contents, shown: shownManifest))
    }

    /// Verifies the backup while copying it beside its places: the catalog (to be read, every
    /// row checked), the files into `.restoring-<folder>` folders, all durable.
    private func stage(_ target: Target, progress: (Int, Int) -> Void) throws(RestoreError) -> Staged {
        let inspected = try inspect(target)
        let (backup, state, owner, expected) = (target.backup, target.state, target.owner, inspected.expected)
        // The files, into `.restoring-<folder>` folders.
        var staged: [HeldFolder] = []
        for folder in BackupFolder.all {
            let name = Array((Self.restoringPrefix + folder.name).utf8)
            staged.append(try Self.fileSystem { () throws(SystemError) in
                try state.makeNewFolder(name, mode: StatePermissions.folderMode)
                if let owner {
                    guard Self.withCString(name, { fchownat(state.descriptor, $0, owner.uid, owner.gid, AT_SYMLINK_NOFOLLOW) }) == 0 else {
                        throw SystemError("chown", state.path.appending(name))
                    }
                }
                return try state.folder(name)
            })
        }
        let sources = try sourceFolders(of: backup)
        for (done, entry) in expected.enumerated() {
            guard let source = sources[entry.folder] else { throw .missingFile(backup.path.appending(entry.file.path).description) }
            try copy(entry.name, from: source, to: entry.name, in: staged[entry.folder], expecting: entry.file, owner: owner)
            progress(done + 1, expected.count)
        }
        try Self.fileSystem { () throws(SystemError) in
            for folder in staged { try folder.sync() }
            try state.sync()
        }
        return Staged(contents: inspected.contents, expected: expected)
    }

    /// The backup's folders of ``BackupFolder/all``, nil for one it does not have.
    func sourceFolders(of backup: HeldFolder) throws(RestoreError) -> [HeldFolder?] {
        var sources: [HeldFolder?] = []
        for folder in BackupFolder.all {
            do throws(SystemError) {
                sources.append(try backup.folder(Array(folder.name.utf8)))
            } catch where error.isNotFound {
                sources.append(nil)
            } catch {
                throw .fileSystem(error)
            }
        }
        return sources
    }

    /// The staged folders into place (the empty ones they replace go first).
    private func installFolders(in state: HeldFolder) throws(RestoreError) {
        try Self.fileSystem { () throws(SystemError) in
            for folder in BackupFolder.all {
                let name = Array(folder.name.utf8)
                do throws(SystemError) {
                    try state.removeFolder(name)
                } catch where error.isNotFound {}
                try state.renameNoReplace(Array((Self.restoringPrefix + folder.name).utf8), to: state, as: name)
            }
            try state.sync()
        }
    }

    /// Empties the photo folders again (a load into the catalog failed after they were installed).
    private func emptyFolders(in state: HeldFolder) {
        for folder in BackupFolder.all {
            if let installed = try? state.folder(Array(folder.name.utf8)) { BackupTree.empty(installed) }
        }
        try? state.sync()
    }

    /// The checked rows as a new SQLite catalog beside its place (`.restoring-utensils.sqlite`),
    /// made by this version's migrations, durable.
    func writeCatalog(_ rows: CatalogContents, in state: HeldFolder, owner: FileOwner?) throws(RestoreError) {
        let path = state.path.appending(Self.stagedCatalog).description
        do {
            try SQLiteSnapshotWriter().writeSQLite(rows, to: path)
        } catch {
            throw .catalogNotWritten(path: settings.catalogPath, problem: error.description)
        }
        if let owner {
            guard Self.withCString(Self.stagedCatalog, { fchownat(state.descriptor, $0, owner.uid, owner.gid, AT_SYMLINK_NOFOLLOW) }) == 0 else {
                throw .fileSystem(SystemError("chown", state.path.appending(Self.stagedCatalog)))
            }
        }
    }

    /// The written catalog into place as the state folder's SQLite catalog.
    func installCatalogFile(in state: HeldFolder, owner: FileOwner?) throws(RestoreError) {
        let (catalogName, stagedCatalog) = (Self.catalogName, Self.stagedCatalog)
        try Self.fileSystem { () throws(SystemError) in
            for suffix in ["", "-wal", "-shm"] {
                try state.unlinkIfPresent(catalogName + Array(suffix.utf8))
            }
            try state.renameNoReplace(stagedCatalog, to: state, as: catalogName)
            try state.sync()
        }
        // Opening it puts it in WAL mode, as the daemon keeps it.
        do {
            _ = try SQLiteCatalog(path: settings.catalogPath).countAll()
        } catch {
            throw .catalogNotWritten(path: settings.catalogPath, problem: "it was installed but cannot be opened (\(error))")
        }
        if let owner {
            for suffix in ["", "-wal", "-shm"] {
                _ = Self.withCString(catalogName + Array(suffix.utf8)) {
                    fchownat(state.descriptor, $0, owner.uid, owner.gid, AT_SYMLINK_NOFOLLOW)
                }
            }
        }
    }

    /// Copies `name` of `source` into a new file of `folder`, refusing bytes that differ
    /// from `expected`'s size and checksum.
    private func copy(
        _ name: [UInt8], from source: HeldFolder, to newName: [UInt8], in folder: HeldFolder,
        expecting expected: BackupManifest.File, owner: FileOwner?
    ) throws(RestoreError) {
        let shown = source.path.appending(name)
        let fd: Int32
        do {
            fd = try source.openForReading(name)
        } catch {
            if error.isNotFound || error.code == ELOOP { throw .missingFile(shown.description) }
            throw .fileSystem(error)
        }
        defer { close(fd) }
        let digest = try Self.fileSystem { () throws(SystemError) in
            try HashingCopy.clearNonBlocking(fd, shown: shown)
            return try HashingCopy.copy(fd, shown: shown, to: newName, in: folder, owner: owner)
        }
        guard digest == HashingCopy.Digest(bytes: expected.bytes, sha256: expected.sha256) else {
            throw .damagedFile(shown.description)
        }
    }

    // MARK: The target

    /// Refuses a state folder with files in its photo folders.
    private func ensureEmpty(_ state: HeldFolder) throws(RestoreError) {
        for folder in BackupFolder.all {
            let names: [[UInt8]]
            do {
                names = try state.folder(Array(folder.name.utf8)).list()
            } catch {
                if error.isNotFound { continue }
                throw .fileSystem(error)
            }
            if !names.isEmpty {
                throw .notEmpty("\(settings.stateDirectory.appending(folder.name)) holds \(names.count) files")
            }
        }
    }

    /// Refuses a SQLite catalog file in the state folder that holds utensils.
    func ensureEmptyCatalogFile() throws(RestoreError) {
        guard FileOps.exists(RawPath(settings.catalogPath)) else { return }
        let count: Int
        do {
            count = try SQLiteCatalog(path: settings.catalogPath).countAll()
        } catch {
            throw .notEmpty("the catalog \(settings.catalogPath) cannot be read (\(error))")
        }
        if count > 0 { throw .notEmpty("the catalog \(settings.catalogPath) holds \(count) utensils") }
    }

    /// Removes what an interrupted or failed restore left (`.restoring-*`).
    func removeLeftovers(in state: HeldFolder) {
        for name in (try? state.list()) ?? [] where name.starts(with: Array(Self.restoringPrefix.utf8)) {
            if let folder = try? state.folder(name) {
                BackupTree.empty(folder)
                try? state.removeFolder(name)
            } else {
                try? state.unlink(name)
            }
        }
    }

    /// Run as root, what the restore creates goes to the state folder's owner (the daemon's
    /// user, as systemd's `StateDirectory=` made it); otherwise to whoever runs it.
    private static func owner(of state: HeldFolder) throws(SystemError) -> FileOwner? {
        guard geteuid() == 0 else { return nil }
        var status = stat()
        guard fstat(state.descriptor, &status) == 0 else { throw SystemError("fstat folder", state.path) }
        return status.st_uid == 0 ? nil : FileOwner(uid: status.st_uid, gid: status.st_gid)
    }

    static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try HeldFolder.withCString(bytes, body)
    }

    static func fileSystem<T>(_ body: () throws(SystemError) -> T) throws(RestoreError) -> T {
        do { return try body() } catch { throw .fileSystem(error) }
    }
}
