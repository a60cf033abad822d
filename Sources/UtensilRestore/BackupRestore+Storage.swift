import Foundation
import Glibc
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilStorage
import UtensilStore

/// A restore whose renditions go into a storage other than the state folder's own folders (a
/// bucket), through the storage seam (``RenditionStorage``) in the order every operation keeps:
/// staged and durable, then the catalog's commit, then published. So a site moves from local
/// folders into a bucket by restoring a backup with `storage = "s3://…"`, and back by restoring
/// a backup taken on a bucket with the local storage.
///
/// The backup is trusted no more than into folders: its manifest and catalog are checked first
/// (``BackupRestore/inspect(_:)``), then every file it lists is read and measured against
/// `backup.json` before anything is written into the storage; each is measured again as it is
/// staged. Nothing is written outside the storage's own keys (those of the live renditions of
/// the catalog's checked ids and extensions, made by the storage). A restore that fails before
/// the commit discards what it staged, so the storage holds nothing of it; one interrupted
/// leaves staged objects under this host's `staging/<host_name>/`, which the daemon's start-up
/// recovery (or the next restore) removes, since no row names them.
extension BackupRestore {
    /// Restores the backup at `backupPath` into `catalog` (nil: the SQLite catalog in the state
    /// folder), shown as `shownCatalog`, and its renditions into `storage`, shown as
    /// `shownStorage`; both must be empty. `progress` hears (files done, files in all).
    public func restore(
        from backupPath: RawPath, into catalog: (any CatalogBackend)?, shownAs shownCatalog: String,
        storage: any RenditionStorage, shownAs shownStorage: String, progress: (Int, Int) -> Void
    ) async throws(RestoreError) -> RestoreSummary {
        let target = try open(backupPath)
        if let catalog {
            try await ensureEmpty(catalog, shownAs: shownCatalog)
        } else {
            try ensureEmptyCatalogFile()
        }
        try await ensureEmpty(storage, shownAs: shownStorage)
        removeLeftovers(in: target.state)
        defer { removeLeftovers(in: target.state) }

        let inspected = try inspect(target)
        let sources = try sourceFolders(of: target.backup)
        try verify(inspected.expected, in: sources, backup: target.backup)
        var staged: [StagedRenditions] = []
        do throws(RestoreError) {
            try await stage(inspected.expected, from: sources, backup: target.backup, into: storage, shownAs: shownStorage, staged: &staged, progress: progress)
            if let catalog {
                do throws(CatalogError) {
                    try await catalog.load(inspected.contents.rows)
                } catch {
                    if case .notEmpty(let utensils) = error { throw .catalogNotEmpty(catalog: shownCatalog, utensils: utensils) }
                    throw .catalogFailed(catalog: shownCatalog, problem: error.description)
                }
            } else {
                try writeCatalog(inspected.contents.rows, in: target.state, owner: target.owner)
                try installCatalogFile(in: target.state, owner: target.owner)
            }
        } catch {
            for operation in staged { try? await storage.discard(operation) }
            throw error
        }
        try await publish(staged, in: storage, shownAs: shownStorage)
        return finished(inspected, from: backupPath)
    }

    /// Refuses a catalog of another backend that holds any utensil, the trash included.
    func ensureEmpty(_ catalog: any CatalogBackend, shownAs shownCatalog: String) async throws(RestoreError) {
        let held: Int
        do throws(CatalogError) {
            held = try await catalog.countAll()
        } catch {
            throw .catalogFailed(catalog: shownCatalog, problem: error.description)
        }
        if held > 0 { throw .catalogNotEmpty(catalog: shownCatalog, utensils: held) }
    }

    /// Refuses a storage that holds any live rendition, and removes what an interrupted restore
    /// staged on this host (the catalog is empty, so no row names it).
    private func ensureEmpty(_ storage: any RenditionStorage, shownAs shownStorage: String) async throws(RestoreError) {
        var held = 0
        do throws(StorageError) {
            try await storage.prepare()
            for rendition in Rendition.allCases { held += try await storage.list(rendition).count }
            if held == 0 {
                for operation in try await storage.listStaged() { try await storage.discard(operation) }
            }
        } catch {
            throw .storageFailed(storage: shownStorage, problem: error.description)
        }
        if held > 0 { throw .storageNotEmpty(storage: shownStorage, renditions: held) }
    }

    /// Reads every listed file and measures it against `backup.json`, writing nothing.
    private func verify(_ expected: [ExpectedFile], in sources: [HeldFolder?], backup: HeldFolder) throws(RestoreError) {
        for entry in expected {
            let source = try sourceFolder(entry, in: sources, backup: backup)
            let digest: HashingCopy.Digest
            do throws(SystemError) {
                digest = try HashingCopy.digest(of: entry.name, in: source)
            } catch {
                if error.isNotFound || error.code == ELOOP { throw .missingFile(source.path.appending(entry.name).description) }
                if error.code == EINVAL { throw .damagedFile(source.path.appending(entry.name).description) }
                throw .fileSystem(error)
            }
            guard digest == HashingCopy.Digest(bytes: entry.file.bytes, sha256: entry.file.sha256) else {
                throw .damagedFile(source.path.appending(entry.name).description)
            }
        }
    }

    /// Stages every utensil's renditions in `storage` (measured again as they are read), each
    /// operation appended to `staged` as soon as it exists, then makes them durable.
    private func stage(
        _ expected: [ExpectedFile], from sources: [HeldFolder?], backup: HeldFolder, into storage: any RenditionStorage,
        shownAs shownStorage: String, staged: inout [StagedRenditions], progress: (Int, Int) -> Void
    ) async throws(RestoreError) {
        var done = 0
        var index = expected.startIndex
        while index < expected.endIndex {
            let utensil = expected[index].utensil
            let originalExtension = expected[index].originalExtension
            var renditions: [Rendition: [UInt8]] = [:]
            while index < expected.endIndex, expected[index].utensil == utensil {
                renditions[expected[index].rendition] = try read(expected[index], from: sources, backup: backup)
                index += 1
            }
            do throws(StorageError) {
                staged.append(try await storage.stage(renditions, of: utensil, originalExtension: originalExtension))
            } catch {
                throw .storageFailed(storage: shownStorage, problem: error.description)
            }
            done += renditions.count
            progress(done, expected.count)
        }
        do throws(StorageError) {
            try await storage.makeDurable(staged)
        } catch {
            throw .storageFailed(storage: shownStorage, problem: error.description)
        }
    }

    /// The bytes of a listed file, refused unless they are those `backup.json` measured.
    private func read(_ entry: ExpectedFile, from sources: [HeldFolder?], backup: HeldFolder) throws(RestoreError) -> [UInt8] {
        let source = try sourceFolder(entry, in: sources, backup: backup)
        let shown = source.path.appending(entry.name).description
        let read: (bytes: [UInt8], digest: HashingCopy.Digest)?
        do throws(SystemError) {
            read = try HashingCopy.readWhole(entry.name, in: source, limit: Int(clamping: entry.file.bytes))
        } catch {
            if error.isNotFound || error.code == ELOOP { throw .missingFile(shown) }
            throw .fileSystem(error)
        }
        guard let read, read.digest == HashingCopy.Digest(bytes: entry.file.bytes, sha256: entry.file.sha256) else {
            throw .damagedFile(shown)
        }
        return read.bytes
    }

    private func sourceFolder(_ entry: ExpectedFile, in sources: [HeldFolder?], backup: HeldFolder) throws(RestoreError) -> HeldFolder {
        guard let source = sources[entry.folder] else { throw .missingFile(backup.path.appending(entry.file.path).description) }
        return source
    }

    /// Publishes every staged operation (the rows are committed); those that fail stay staged
    /// for the daemon's recovery, and are counted in the error.
    private func publish(_ staged: [StagedRenditions], in storage: any RenditionStorage, shownAs shownStorage: String)
        async throws(RestoreError)
    {
        var failed = 0
        var firstProblem: StorageError?
        for operation in staged {
            do throws(StorageError) {
                try await storage.publish(operation)
            } catch {
                failed += 1
                firstProblem = firstProblem ?? error
            }
        }
        do throws(StorageError) {
            try await storage.makeChangesDurable()
        } catch {
            firstProblem = firstProblem ?? error
        }
        if let firstProblem {
            throw .notPublished(storage: shownStorage, utensils: max(failed, 1), problem: firstProblem.description)
        }
    }
}
