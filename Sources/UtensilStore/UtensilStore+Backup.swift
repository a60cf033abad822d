import Foundation
import Glibc
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// `utensilctl backup DEST`: a consistent copy of the catalog and the files of exactly its
/// utensils, while ingests go on.
///
/// 1. The catalog's snapshot is taken with the ``SnapshotGate`` closed, an instant in which
///    no operation is between a row change and its files' move: every row of the snapshot
///    has its files in place then. It is written out as `utensils.sqlite` (SQLite's online
///    backup, from the snapshot's read transaction: writers go on meanwhile).
/// 2. Each utensil's files are hard-linked into DEST (copied where links cannot be made, as
///    across file systems), each while its lock is held (``whileChanging(_:_:)``) and only
///    if its row is still the snapshot's: a later delete or replacement cannot slip in
///    between. A file is immutable once in place (a new thumbnail is renamed over the old
///    one), so a link keeps the snapshot's bytes. Should a utensil have been deleted or
///    replaced since the snapshot, the attempt starts again with a new one (three at most).
/// 3. `backup.json` is written last, and everything is made durable.
extension UtensilStore {
    static let backupAttempts = 3

    /// Makes the backup, awaited in the caller's task; `progress` is told how far it is,
    /// `isCancelled` is asked between files.
    public func backup(
        _ request: BackupRequest, progress: (BackupProgress) async -> Void, isCancelled: () -> Bool
    ) async throws(BackupError) -> BackupSummary {
        let (parent, destination) = try makeDestination(request)
        do throws(BackupError) {
            for _ in 1...Self.backupAttempts {
                if let summary = try await backupAttempt(into: destination, request: request, progress: progress, isCancelled: isCancelled) {
                    try Self.fileSystem { () throws(SystemError) in
                        try destination.sync()
                        try parent.sync()
                    }
                    return summary
                }
                BackupTree.empty(destination)
            }
            throw .keptChanging(attempts: Self.backupAttempts)
        } catch {
            BackupTree.empty(destination)
            try? parent.removeFolder(Array(RawPath(request.destination).lastComponent))
            throw error
        }
    }

    /// Checks the destination and creates it (mode 0700: it holds every photo and the catalog).
    private func makeDestination(_ request: BackupRequest) throws(BackupError) -> (parent: HeldFolder, destination: HeldFolder) {
        let path = RawPath(request.destination)
        let name = path.lastComponent
        guard request.destination.hasPrefix("/"), !name.isEmpty, name != Array(".".utf8), name != Array("..".utf8) else {
            throw .invalidDestination(request.destination)
        }
        let parentPath = path.parent
        let parent: HeldFolder
        do {
            parent = try HeldFolder.open(parentPath)
        } catch {
            if error.isNotFound { throw .parentMissing(parentPath.description) }
            throw .fileSystem(error)
        }
        if let expected = request.parentIdentity, expected != parent.identity {
            throw .parentNotShared(parent: parentPath.description, stateDir: settings.stateDirectory.description)
        }
        if let inside = managedFolder(containing: parentPath) { throw .insideState(inside) }
        do {
            try parent.makeNewFolder(name, mode: StatePermissions.folderMode)
        } catch {
            switch error.code {
            case EEXIST: throw .destinationExists(request.destination)
            case EROFS: throw .readOnlyForDaemon(parent: parentPath.description, stateDir: settings.stateDirectory.description)
            case EACCES, EPERM: throw .noPermission(parent: parentPath.description, user: UserName.of(uid: geteuid()))
            default: throw .fileSystem(error)
            }
        }
        do {
            return (parent, try parent.folder(name))
        } catch {
            try? parent.removeFolder(name)
            throw .fileSystem(error)
        }
    }

    /// The folder the daemon watches or keeps photos in (the inbox, whose drops it would
    /// ingest; `rejected/`; `originals/` …) that `folder` is or lies in, if any.
    private func managedFolder(containing folder: RawPath) -> String? {
        guard let resolved = Self.realPath(folder) else { return nil }
        let managed = BackupFolder.all.map { settings.stateDirectory.appending($0.name) }
            + [settings.stagingRoot, settings.inbox, settings.rejected]
        for candidate in managed {
            guard let root = Self.realPath(candidate) else { continue }
            if resolved == root || resolved.hasPrefix(root + "/") { return candidate.description }
        }
        return nil
    }

    private static func realPath(_ path: RawPath) -> String? {
        guard let resolved = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// One attempt; nil when a utensil changed since its snapshot (the caller starts again).
    private func backupAttempt(
        into destination: HeldFolder, request: BackupRequest, progress: (BackupProgress) async -> Void, isCancelled: () -> Bool
    ) async throws(BackupError) -> BackupSummary? {
        let snapshot = try await snapshotGate.closed { () async throws(BackupError) in
            try await Self.fromCatalog { () async throws(CatalogError) in try await catalog.snapshot() }
        }
        let createdAt = Date()
        let utensils = try await Self.fromCatalog { () async throws(CatalogError) in try await snapshot.utensils() }
        let categories = try await Self.fromCatalog { () async throws(CatalogError) in try await snapshot.categoryCount() }
        let catalogName = Array(BackupManifest.catalogFileName.utf8)
        // Created private before SQLite opens it (its journal takes the file's mode).
        try Self.fileSystem { () throws(SystemError) in
            _ = close(try destination.createExclusively(catalogName, mode: StatePermissions.fileMode))
        }
        try await Self.fromCatalog { () async throws(CatalogError) in
            try await snapshot.writeSQLite(to: destination.path.appending(catalogName).description)
        }
        let catalogDigest = try Self.fileSystem { () throws(SystemError) in try HashingCopy.digest(of: catalogName, in: destination) }
        await progress(.catalogWritten(utensils: utensils.count))

        var copier = try BackupCopier(settings: settings, destination: destination)
        for (index, utensil) in utensils.enumerated() {
            if isCancelled() { throw .cancelled }
            guard try await copier.take(utensil, unlessChangedIn: self) else { return nil }
            await progress(.files(done: index + 1, total: utensils.count))
        }
        try copier.finish()

        let files = copier.files.sorted { $0.path < $1.path }
        let trash = utensils.filter(\.trashed).count
        let manifest = BackupManifest(
            format: BackupManifest.formatName, formatVersion: BackupManifest.currentFormatVersion,
            utensildVersion: request.utensildVersion, createdAt: BackupTimestamp.string(from: createdAt),
            counts: .init(
                utensils: utensils.count - trash, trash: trash, categories: categories, files: files.count,
                bytes: files.reduce(0) { $0 + $1.bytes }),
            catalog: .init(path: BackupManifest.catalogFileName, bytes: catalogDigest.bytes, sha256: catalogDigest.sha256),
            files: files, missing: copier.missing.sorted())
        try Self.fileSystem { () throws(SystemError) in
            let encoded: [UInt8]
            do {
                encoded = try manifest.encoded()
            } catch {
                throw SystemError("encode", BackupManifest.fileName, code: EINVAL)
            }
            try FileOps.writeThroughTemporary(encoded, in: destination, as: Array(BackupManifest.fileName.utf8), durable: true)
        }
        return BackupSummary(destination: request.destination, createdAt: createdAt, manifest: manifest, linked: copier.linked, copied: copier.copied)
    }

    /// Awaits `body`'s calls of the catalog; its refusal is ``BackupError/catalog(_:)``.
    static func fromCatalog<T>(_ body: () async throws(CatalogError) -> T) async throws(BackupError) -> T {
        do { return try await body() } catch { throw .catalog(error) }
    }

    static func fileSystem<T>(_ body: () throws(SystemError) -> T) throws(BackupError) -> T {
        do { return try body() } catch { throw .fileSystem(error) }
    }
}
