import Foundation
import Glibc
import UtensilCore

/// ``RenditionStorage`` in `state_dir`, laid out by ``StateLayout``: each rendition a file in
/// `originals/`, `thumbnails/`, `previews/` or `squares/`, staged in this host's `staging/<host_name>/`.
///
/// How it keeps the promises: every name is resolved beneath a held folder, never through a
/// link (``HeldFolder``); a staged file is written under a temporary name and renamed
/// (``FileOps/writeThroughTemporary(_:in:as:mode:durable:)``), made durable by an `fsync` of
/// each file and then one of the staging folder for a whole group; a publish is a rename
/// that never replaces (`renameat2(RENAME_NOREPLACE)`), atomic, so a power cut leaves each
/// file either staged or live; a delete is an `unlink` and an `fsync` of its folder. Files and
/// folders are private to the daemon (``fileMode``, ``folderMode``).
public struct LocalFolderStorage: RenditionStorage {
    /// Where each rendition lives.
    public let layout: StateLayout
    /// Names this host's own folder in `staging/`; only this host stages there and recovers it.
    public let hostName: String

    /// The mode of every folder under `state_dir`: the daemon's alone.
    public static let folderMode: mode_t = 0o700
    /// The mode of every file under `state_dir`.
    public static let fileMode: mode_t = 0o600

    /// Told each time a single file operation is done or about to be (see ``Step``); what it
    /// throws fails that operation as the file system's own error would.
    public let onStep: (@Sendable (Step) throws(SystemError) -> Void)?

    /// A point between two single file operations, as it is passed: so that a test can stop
    /// the process exactly there, or fail an `fsync` (the store's fault injection), whatever
    /// operation it is in.
    public enum Step: Sendable {
        /// A rendition of an operation is written into `staging/<host_name>/` (not yet durable).
        case staged(Rendition, of: StagedRenditions)
        /// A rendition of an operation is renamed into place.
        case published(Rendition, of: StagedRenditions)
        /// A rendition of an operation is removed from `staging/<host_name>/` (or was not there).
        case discarded(Rendition, of: StagedRenditions)
        /// ``makeChangesDurable()`` is about to `fsync` this folder.
        case syncing(HeldFolder)
    }

    /// `onStep`, when given, is told of every ``Step`` passed.
    public init(layout: StateLayout, hostName: String, onStep: (@Sendable (Step) throws(SystemError) -> Void)? = nil) {
        self.layout = layout
        self.hostName = hostName
        self.onStep = onStep
    }

    /// `staging/<host_name>`.
    public var staging: RawPath { layout.staging(host: hostName) }

    /// The live rendition's path under `state_dir`.
    public func url(of key: RenditionKey) -> String {
        layout.path(of: key.rendition, id: key.utensil, fileExtension: key.fileExtension).description
    }

    /// Also removes what an interrupted write left in this host's staging folder under no
    /// staged name (a temporary); it runs at start, when no operation is in flight. Anything
    /// there but a regular file is left alone.
    public func prepare() async throws(StorageError) {
        try local { () throws(SystemError) in
            for folder in [layout.stateDirectory] + Rendition.allCases.map(layout.folder(of:)) + [layout.stagingRoot, staging] {
                try FileOps.makeDirectory(folder, mode: Self.folderMode)
            }
            let folder = try HeldFolder.open(staging)
            for name in try folder.list() where StagedName(parsing: name) == nil {
                guard (try? folder.status(of: name))?.kind == .regular else { continue }
                try folder.unlinkIfPresent(name)
            }
        }
    }

    public func stage(
        _ renditions: [Rendition: [UInt8]], of utensil: UUID, originalExtension: String
    ) async throws(StorageError) -> StagedRenditions {
        let staged = StagedRenditions(
            utensil: utensil, operation: UUID(), originalExtension: originalExtension, renditions: Set(renditions.keys))
        try local { () throws(SystemError) in
            let folder = try HeldFolder.open(staging)
            do throws(SystemError) {
                for rendition in Rendition.allCases {
                    guard let bytes = renditions[rendition] else { continue }
                    try FileOps.writeThroughTemporary(
                        bytes, in: folder, as: stagedName(staged, rendition), mode: Self.fileMode, durable: false)
                    try onStep?(.staged(rendition, of: staged))
                }
            } catch {
                removeStaged(staged, in: folder)
                throw error
            }
        }
        return staged
    }

    public func makeDurable(_ operations: [StagedRenditions]) async throws(StorageError) {
        try local { () throws(SystemError) in
            let folder = try HeldFolder.open(staging)
            for operation in operations {
                for rendition in Rendition.allCases where operation.renditions.contains(rendition) {
                    try FileOps.fsyncFile(stagedName(operation, rendition), in: folder)
                }
            }
            try folder.sync()
        }
    }

    public func publish(_ operation: StagedRenditions) async throws(StorageError) {
        let folder = try local { () throws(SystemError) in try HeldFolder.open(staging) }
        for rendition in operation.publishingOrder {
            let key = operation.key(rendition)
            let target = try local { () throws(SystemError) in try HeldFolder.open(layout.folder(of: rendition)) }
            do throws(SystemError) {
                try folder.renameNoReplace(stagedName(operation, rendition), to: target, as: Array(key.fileName.utf8))
            } catch where error.code == EEXIST {
                throw .alreadyLive(key)
            } catch where error.isNotFound {
                throw .notStaged(key)
            } catch {
                throw .fileSystem(error)
            }
            try local { () throws(SystemError) in try onStep?(.published(rendition, of: operation)) }
        }
    }

    public func discard(_ operation: StagedRenditions) async throws(StorageError) {
        try local { () throws(SystemError) in
            let folder = try HeldFolder.open(staging)
            for rendition in Rendition.allCases {
                try folder.unlinkIfPresent(stagedName(operation, rendition))
                if operation.renditions.contains(rendition) { try onStep?(.discarded(rendition, of: operation)) }
            }
        }
    }

    public func size(of key: RenditionKey) async throws(StorageError) -> Int64 {
        try withLiveFile(key) { (_: Int32, status: FileStatus, _: RawPath) throws(SystemError) -> Int64 in Int64(status.size) }
    }

    /// The version is the file's inode, size and modification time: a replaced rendition is
    /// another file.
    public func status(of key: RenditionKey) async throws(StorageError) -> RenditionStatus {
        try withLiveFile(key) { (_: Int32, status: FileStatus, _: RawPath) throws(SystemError) -> RenditionStatus in
            let version = [status.identity.inode, UInt64(status.size), UInt64(bitPattern: status.modificationNanoseconds)]
                .map { String($0, radix: 16) }.joined(separator: "-")
            return RenditionStatus(size: Int64(status.size), version: version)
        }
    }

    public func read(_ key: RenditionKey, range: Range<Int64>?) async throws(StorageError) -> [UInt8] {
        try withLiveFile(key) { (fd: Int32, status: FileStatus, path: RawPath) throws(SystemError) -> [UInt8] in
            let size = Int64(status.size)
            let wanted = range ?? 0..<size
            let start = min(max(wanted.lowerBound, 0), size)
            let end = min(max(wanted.upperBound, start), size)
            return try FileOps.readRange(fd, offset: start, count: Int(end - start), path: path)
        }
    }

    public func delete(_ key: RenditionKey) async throws(StorageError) {
        try local { () throws(SystemError) in
            let folder = try HeldFolder.open(layout.folder(of: key.rendition))
            try folder.unlinkIfPresent(Array(key.fileName.utf8))
            try folder.sync()
        }
    }

    public func readStaged(_ rendition: Rendition, of operation: StagedRenditions) async throws(StorageError) -> [UInt8] {
        let bytes: [UInt8]?
        do throws(SystemError) {
            bytes = try FileOps.readRegularFile(stagedName(operation, rendition), in: try HeldFolder.open(staging))
        } catch where error.isNotFound {
            bytes = nil
        } catch {
            throw .fileSystem(error)
        }
        guard let bytes else { throw .notStaged(operation.key(rendition)) }
        return bytes
    }

    public func unpublish(_ keys: [RenditionKey]) async throws(StorageError) -> StagedRenditions {
        let ordered = keys.filter { $0.rendition == .original } + keys.filter { $0.rendition != .original }
        let operation = StagedRenditions(
            utensil: ordered.first?.utensil ?? UUID(), operation: UUID(),
            originalExtension: ordered.first { $0.rendition == .original }?.fileExtension ?? "jpeg", renditions: [])
        var moved: [(key: RenditionKey, folder: HeldFolder)] = []
        let staging: HeldFolder
        do throws(SystemError) {
            staging = try HeldFolder.open(self.staging)
            for key in ordered {
                let folder = try HeldFolder.open(layout.folder(of: key.rendition))
                do throws(SystemError) {
                    try folder.rename(Array(key.fileName.utf8), to: staging, as: stagedName(operation, key.rendition))
                } catch where error.isNotFound {
                    continue
                }
                moved.append((key, folder))
            }
            try staging.sync()
            for (_, folder) in moved { try folder.sync() }
        } catch {
            for (key, folder) in moved.reversed() {
                if let staging = try? HeldFolder.open(self.staging) {
                    try? staging.renameNoReplace(stagedName(operation, key.rendition), to: folder, as: Array(key.fileName.utf8))
                }
            }
            throw .fileSystem(error)
        }
        return StagedRenditions(
            utensil: operation.utensil, operation: operation.operation, originalExtension: operation.originalExtension,
            renditions: Set(moved.map(\.key.rendition)))
    }

    /// Makes the renames and removals in `staging/<host_name>/`, `originals/`, `thumbnails/` and
    /// `previews/` durable: an `fsync` of each folder.
    public func makeChangesDurable() async throws(StorageError) {
        try local { () throws(SystemError) in
            for path in [staging] + Rendition.allCases.map(layout.folder(of:)) {
                let folder = try HeldFolder.open(path)
                try onStep?(.syncing(folder))
                try folder.sync()
            }
        }
    }

    public func list(_ rendition: Rendition) async throws(StorageError) -> [RenditionKey] {
        try local { () throws(SystemError) in
            // Only names as the daemon spells them (a temporary, a stray are none).
            try HeldFolder.open(layout.folder(of: rendition)).list().compactMap { name in
                RenditionKey(liveName: String(decoding: name, as: UTF8.self), of: rendition)
            }
        }
    }

    /// Each file's age is from its last status change (its write, or the rename that put it
    /// there: a rename keeps the modification time).
    public func listDated(_ rendition: Rendition) async throws(StorageError) -> [DatedRendition] {
        let keys = try await list(rendition)
        let folder = try local { () throws(SystemError) in try HeldFolder.open(layout.folder(of: rendition)) }
        return keys.compactMap { key in
            guard let status = try? folder.status(of: Array(key.fileName.utf8)), status.kind == .regular else { return nil }
            return DatedRendition(key: key, written: Self.date(status))
        }
    }

    /// Every host's folder in `staging/` (a state folder several hosts mount); files directly
    /// in `staging/` (an older version's) are left to their host's start.
    public func listEveryHostsStaged() async throws(StorageError) -> [HostStagedOperation] {
        let root: HeldFolder
        do throws(SystemError) {
            root = try HeldFolder.open(layout.stagingRoot)
        } catch where error.isNotFound {
            return []
        } catch {
            throw .fileSystem(error)
        }
        var found: [HostStagedOperation] = []
        for host in try local({ () throws(SystemError) in try root.list() }) {
            guard (try? root.status(of: host))?.kind == .directory, let folder = try? root.folder(host) else { continue }
            let hostName = String(decoding: host, as: UTF8.self)
            var operations: [UUID: [(name: StagedName, written: Date, path: String)]] = [:]
            for name in try local({ () throws(SystemError) in try folder.list() }) {
                guard let staged = StagedName(parsing: name), let status = try? folder.status(of: name), status.kind == .regular
                else { continue }
                operations[staged.operation, default: []].append((staged, Self.date(status), folder.path.appending(name).description))
            }
            for (operation, parts) in operations {
                let original = parts.first { $0.name.rendition == .original }
                found.append(HostStagedOperation(
                    host: hostName,
                    operation: StagedRenditions(
                        utensil: parts[0].name.utensil, operation: operation,
                        originalExtension: original?.name.fileExtension ?? "jpeg", renditions: Set(parts.map(\.name.rendition))),
                    written: parts.map(\.written).max() ?? Date(), locations: parts.map(\.path).sorted()))
            }
        }
        return found
    }

    /// The same state folder, with `hostName`'s folder in `staging/` (no steps reported).
    public func asHost(_ hostName: String) -> any RenditionStorage {
        LocalFolderStorage(layout: layout, hostName: hostName)
    }

    public func listStaged() async throws(StorageError) -> [StagedRenditions] {
        let names = try local { () throws(SystemError) in try HeldFolder.open(staging).list().compactMap(StagedName.init(parsing:)) }
        var operations: [UUID: (utensil: UUID, original: String?, renditions: Set<Rendition>)] = [:]
        for name in names {
            var entry = operations[name.operation] ?? (name.utensil, nil, [])
            if name.rendition == .original { entry.original = name.fileExtension }
            entry.renditions.insert(name.rendition)
            operations[name.operation] = entry
        }
        return operations.map { operation, entry in
            StagedRenditions(
                utensil: entry.utensil, operation: operation, originalExtension: entry.original ?? "jpeg", renditions: entry.renditions)
        }
    }

    // MARK: Helpers

    /// The name of `rendition` of `operation` in `staging/<host_name>/`.
    private func stagedName(_ operation: StagedRenditions, _ rendition: Rendition) -> [UInt8] {
        StagedName(
            utensil: operation.utensil, operation: operation.operation, rendition: rendition,
            fileExtension: rendition.fileExtension(original: operation.originalExtension)
        ).bytes
    }

    /// Removes what an operation staged, after a failure (what cannot be removed is left to recovery).
    private func removeStaged(_ operation: StagedRenditions, in folder: HeldFolder) {
        for rendition in Rendition.allCases {
            try? folder.unlinkIfPresent(stagedName(operation, rendition))
        }
    }

    /// Runs `body` on the open live file of `key` (a regular file; a link is not followed): a
    /// missing file, or anything but a regular file, is ``StorageError/notFound(_:)``.
    private func withLiveFile<T>(
        _ key: RenditionKey, _ body: (Int32, FileStatus, RawPath) throws(SystemError) -> T
    ) throws(StorageError) -> T {
        let folder = try local { () throws(SystemError) in try HeldFolder.open(layout.folder(of: key.rendition)) }
        let name = Array(key.fileName.utf8)
        let path = folder.path.appending(name)
        let fd: Int32
        do throws(SystemError) {
            fd = try folder.openForReading(name)
        } catch where error.isNotFound || error.code == ELOOP {
            throw .notFound(key)  // ELOOP: a link under that name, which is no rendition.
        } catch {
            throw .fileSystem(error)
        }
        defer { close(fd) }
        let status = try local { () throws(SystemError) in try FileOps.fstat(fd, path: path) }
        guard status.kind == .regular else { throw .notFound(key) }
        return try local { () throws(SystemError) in try body(fd, status, path) }
    }

    /// When a file was last written or moved (its status change time, which a rename sets).
    private static func date(_ status: FileStatus) -> Date {
        Date(timeIntervalSince1970: Double(max(status.modificationNanoseconds, status.changeNanoseconds)) / 1e9)
    }

    /// Runs `body`, its file errors as ``StorageError/fileSystem(_:)``.
    private func local<T>(_ body: () throws(SystemError) -> T) throws(StorageError) -> T {
        do {
            return try body()
        } catch {
            throw .fileSystem(error)
        }
    }
}
