import Glibc
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// Puts the files of a backup's utensils into its folder, one utensil at a time: hard links
/// where the file system allows, else copies; and what `backup.json` says of each.
struct BackupCopier {
    private let folders = BackupFolder.all
    /// The state folder of each of `folders` (nil for one that does not exist: previews, say).
    private let sources: [HeldFolder?]
    /// Each of `folders` in the backup.
    private let targets: [HeldFolder]

    private(set) var files: [BackupManifest.File] = []
    private(set) var missing: [String] = []
    private(set) var linked = 0
    private(set) var copied = 0

    init(settings: IngestSettings, destination: HeldFolder) throws(BackupError) {
        var sources: [HeldFolder?] = []
        var targets: [HeldFolder] = []
        for folder in folders {
            let name = Array(folder.name.utf8)
            do throws(SystemError) {
                sources.append(try HeldFolder.open(settings.stateDirectory.appending(name)))
            } catch where error.isNotFound && !folder.holdsOriginals {
                sources.append(nil)
            } catch {
                throw .fileSystem(error)
            }
            try UtensilStore.fileSystem { () throws(SystemError) in
                try destination.makeNewFolder(name, mode: StatePermissions.folderMode)
                targets.append(try destination.folder(name))
            }
        }
        self.sources = sources
        self.targets = targets
    }

    /// What was done with one file while the utensil's lock was held.
    private enum Taken {
        case linked(folder: Int, name: [UInt8])
        /// Open for copying once the lock is let go (a descriptor keeps the bytes it opened).
        case opened(folder: Int, name: [UInt8], fd: Int32)
        case missing(folder: Int, name: [UInt8])
    }

    /// Takes the files of `utensil` unless its row changed since the snapshot (deleted,
    /// its photo replaced): then false.
    mutating func take(_ utensil: SnapshotUtensil, unlessChangedIn store: UtensilStore) async throws(BackupError) -> Bool {
        guard store.keepsRenditionsInStateFolder else { return try await fetch(utensil, from: store) }
        let taken = try await store.whileChanging(utensil.id) { () async throws(BackupError) -> [Taken]? in
            let live = try await UtensilStore.fromCatalog { () async throws(CatalogError) in
                try await store.catalog.utensil(id: utensil.id)
            }
            guard let live, live.sha256 == utensil.sha256, live.fileExtension == utensil.fileExtension else { return nil }
            var taken: [Taken] = []
            do throws(BackupError) {
                for index in folders.indices {
                    taken.append(try linkOrOpen(Array(folders[index].fileName(utensil.id, utensil.fileExtension).utf8), folder: index))
                }
            } catch {
                Self.close(taken)
                throw error
            }
            return taken
        }
        guard let taken else { return false }
        defer { Self.close(taken) }
        for file in taken {
            try record(file, of: utensil)
        }
        return true
    }

    /// Takes the files of `utensil` from a storage that is not the state folder (a bucket):
    /// read through the store while the utensil's lock is held, written into the backup
    /// after; false when its row changed since the snapshot.
    private mutating func fetch(_ utensil: SnapshotUtensil, from store: UtensilStore) async throws(BackupError) -> Bool {
        let renditions = Rendition.allCases
        let fetched = try await store.whileChanging(utensil.id) { () async throws(BackupError) -> [[UInt8]?]? in
            let live = try await UtensilStore.fromCatalog { () async throws(CatalogError) in
                try await store.catalog.utensil(id: utensil.id)
            }
            guard let live, live.sha256 == utensil.sha256, live.fileExtension == utensil.fileExtension else { return nil }
            var fetched: [[UInt8]?] = []
            for rendition in renditions {
                do throws(StoreError) {
                    fetched.append(try await store.readRendition(rendition, of: utensil.id, fileExtension: utensil.fileExtension))
                } catch .notFound {
                    fetched.append(nil)
                } catch {
                    throw .storage(error.description)
                }
            }
            return fetched
        }
        guard let fetched else { return false }
        for (index, bytes) in fetched.enumerated() {
            let name = Array(folders[index].fileName(utensil.id, utensil.fileExtension).utf8)
            let shown = store.location(renditions[index], of: utensil.id, fileExtension: utensil.fileExtension)
            guard let bytes else {
                if folders[index].holdsOriginals { throw .originalMissing(id: utensil.id.uuidString, path: shown) }
                missing.append(path(index, name))
                continue
            }
            let sha256 = ContentHash.sha256(of: bytes)
            if folders[index].holdsOriginals && sha256 != utensil.sha256 {
                throw .originalDamaged(id: utensil.id.uuidString, path: shown)
            }
            try UtensilStore.fileSystem { () throws(SystemError) in
                try FileOps.writeThroughTemporary(bytes, in: targets[index], as: name, mode: StatePermissions.fileMode, durable: false)
            }
            files.append(.init(path: path(index, name), bytes: Int64(bytes.count), sha256: sha256))
            copied += 1
        }
        return true
    }

    /// Makes the backup's folders durable.
    func finish() throws(BackupError) {
        try UtensilStore.fileSystem { () throws(SystemError) in
            for target in targets { try target.sync() }
        }
    }

    private func linkOrOpen(_ name: [UInt8], folder index: Int) throws(BackupError) -> Taken {
        guard let source = sources[index] else { return .missing(folder: index, name: name) }
        let result = HeldFolder.withCString(name) { linkat(source.descriptor, $0, targets[index].descriptor, $0, 0) }
        if result == 0 { return .linked(folder: index, name: name) }
        switch errno {
        case ENOENT:
            return .missing(folder: index, name: name)
        case EXDEV, EPERM, EMLINK, EACCES, ENOTSUP:
            do {
                return .opened(folder: index, name: name, fd: try source.openForReading(name))
            } catch where error.isNotFound {
                return .missing(folder: index, name: name)
            } catch {
                throw .fileSystem(error)
            }
        default:
            throw .fileSystem(SystemError("link", source.path.appending(name)))
        }
    }

    private mutating func record(_ file: Taken, of utensil: SnapshotUtensil) throws(BackupError) {
        switch file {
        case .linked(let index, let name):
            let target = targets[index]
            let digest: HashingCopy.Digest = try UtensilStore.fileSystem { () throws(SystemError) in
                // An original's checksum is the catalog's (its row is the snapshot's, so the
                // file is that photo); other files are read.
                folders[index].holdsOriginals
                    ? HashingCopy.Digest(bytes: Int64(try target.status(of: name).size), sha256: utensil.sha256)
                    : try HashingCopy.digest(of: name, in: target)
            }
            files.append(.init(path: path(index, name), bytes: digest.bytes, sha256: digest.sha256))
            linked += 1
        case .opened(let index, let name, let fd):
            let shown = sources[index]!.path.appending(name)
            let digest = try UtensilStore.fileSystem { () throws(SystemError) in
                try HashingCopy.clearNonBlocking(fd, shown: shown)
                return try HashingCopy.copy(fd, shown: shown, to: name, in: targets[index], owner: nil)
            }
            if folders[index].holdsOriginals && digest.sha256 != utensil.sha256 {
                throw .originalDamaged(id: utensil.id.uuidString, path: shown.description)
            }
            files.append(.init(path: path(index, name), bytes: digest.bytes, sha256: digest.sha256))
            copied += 1
        case .missing(let index, let name):
            if folders[index].holdsOriginals {
                throw .originalMissing(
                    id: utensil.id.uuidString,
                    path: (sources[index]?.path ?? RawPath(folders[index].name)).appending(name).description)
            }
            missing.append(path(index, name))
        }
    }

    private func path(_ index: Int, _ name: [UInt8]) -> String {
        folders[index].name + "/" + String(decoding: name, as: UTF8.self)
    }

    private static func close(_ taken: [Taken]) {
        for case .opened(_, _, let fd) in taken { Glibc.close(fd) }
    }
}

/// Removing what a backup or restore had written when it does not finish.
package enum BackupTree {
    /// Removes every file and folder inside `folder` (its layout is two levels deep at most:
    /// files, and folders of files), leaving `folder` itself.
    package static func empty(_ folder: HeldFolder) {
        guard let names = try? folder.list() else { return }
        for name in names {
            if let inner = try? folder.status(of: name), inner.kind == .directory, let held = try? folder.folder(name) {
                for file in (try? held.list()) ?? [] { try? held.unlink(file) }
                try? folder.removeFolder(name)
            } else {
                try? folder.unlink(name)
            }
        }
    }
}
