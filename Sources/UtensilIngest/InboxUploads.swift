import CUtensilSupport
import Foundation
import Glibc
import UtensilCore
import UtensilStorage
import UtensilStore

/// The web gallery's way into the inbox, through the same confined operations as every other
/// file operation of the daemon. A category's folder is opened beneath the held inbox (made
/// if missing, never reached through a link); each file is created in it exclusively under a
/// hidden name (``temporaryPrefix``), writable by utensild alone (``fileMode``), labelled
/// with its uploader for `addedBy`, flushed, and renamed into place without overwriting.
/// What the browser sent reaches system calls only as checked single names relative to a
/// held folder, never as a path.
public struct InboxUploads: Sendable {
    /// Uploads being written are `.upload-<UUID>.part`: invisible to the watcher.
    static let temporaryPrefix = UploadTemporaryName.prefix
    static let temporarySuffix = UploadTemporaryName.suffix
    /// The group (the folder's, `utensil`) may read an upload, as it reads `rejected/`;
    /// nobody but utensild may write it, so nobody can swap its photo before the ingest.
    static let fileMode: mode_t = 0o640
    /// A category folder the upload makes: shared with the group like the inbox (setgid).
    static let folderMode: mode_t = 0o2770

    let inbox: FolderAnchor
    /// Folders that are never a category: `rejected/` or the state folder, should someone
    /// have placed them inside the inbox (the scanner skips them too).
    let excludedFolders: Set<FileIdentity>

    public init(inbox: RawPath, excludedFolders: Set<FileIdentity> = []) {
        self.inbox = FolderAnchor(inbox)
        self.excludedFolders = excludedFolders
    }

    /// Uploads into the settings' inbox, never into the folders its scanner skips.
    public init(settings: IngestSettings) {
        let scanner = InboxScanner(settings: settings)
        self.init(inbox: scanner.inbox, excludedFolders: scanner.excludedFolders)
    }

    /// Starts the file `fileName` (one name, as uploaded) in the folder of `category` (nil:
    /// the inbox itself), owned by utensild and marked as `uploader`'s.
    public func create(fileName: String, category: String?, uploader: String) throws(UploadRefusal) -> UploadFile {
        let name = Array(fileName.utf8)
        if let problem = Self.problem(with: name) { throw .badFileName(fileName, problem) }
        let root: HeldFolder
        do {
            root = try inbox.folder()
        } catch {
            throw .inboxUnavailable(error)
        }
        var folder = root
        var relative: [UInt8] = []
        if let category, !category.isEmpty {
            let checked: UtensilName
            do {
                checked = try CarriedName.category(category)
            } catch {
                throw .badCategory(error)
            }
            relative = Array(checked.value.utf8)
            do {
                try root.makeFolder(relative, mode: Self.folderMode)
                folder = try root.folder(relative)
            } catch where error.code == ELOOP || error.code == ENOTDIR || error.code == EXDEV {
                throw .categoryNotAFolder(checked.value)
            } catch {
                throw .inboxUnavailable(error)
            }
            if excludedFolders.contains(folder.identity) { throw .categoryNotAFolder(checked.value) }
        }
        let temporary = Array((Self.temporaryPrefix + UUID().uuidString + Self.temporarySuffix).utf8)
        let fd: Int32
        let identity: FileIdentity
        do throws(SystemError) {
            fd = try folder.createExclusively(temporary, mode: Self.fileMode)
            do throws(SystemError) {
                identity = try FileOps.fstat(fd, path: folder.path.appending(temporary)).identity
            } catch {
                close(fd)
                try? folder.unlink(temporary)
                throw error
            }
        } catch {
            throw .inboxUnavailable(error)
        }
        // For `addedBy`: utensild trusts it only on files of its own user (``UserName``); a
        // file system without user attributes records utensild's user instead.
        _ = utensil_set_xattr(fd, UserName.uploaderAttribute, uploader)
        return UploadFile(
            inbox: inbox, folder: folder, category: relative, temporary: temporary, name: name, fd: fd, identity: identity)
    }

    /// What is wrong with a file name for the inbox, as the end of a sentence; nil if nothing.
    static func problem(with name: [UInt8]) -> String? {
        if name.isEmpty { return "has no name; give it one" }
        if name.contains(HeldFolder.slash) { return "is not one file name; send the file itself" }
        if name.count > CarriedName.fileNameBytes { return "is longer than \(CarriedName.fileNameBytes) bytes; shorten it" }
        if name.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "holds a control character; rename it" }
        if DropVisibility.isInvisible(name: name, isDirectory: false) {
            return "is a hidden or temporary name the inbox ignores; rename it (no leading dot, no ~, .part or .tmp)"
        }
        return nil
    }

    /// Whether `name` is an upload's temporary file.
    static func isTemporary(_ name: [UInt8]) -> Bool {
        UploadTemporaryName.isTemporary(name)
    }
}

/// One uploaded file on its way into the inbox: hidden while it is written, placed under its
/// own name by ``place()``, removed by ``discard()`` (and by the next start if utensild dies).
///
/// Only while it is written does it hold descriptors (the file and its folder): ``finish()``
/// closes both, so an upload of many files holds none for the files already written. The
/// folder is opened again, beneath the inbox, to place or remove the file.
public final class UploadFile {
    let inbox: FolderAnchor
    /// The category folder's name, or empty for the inbox itself.
    let category: [UInt8]
    let temporary: [UInt8]
    let name: [UInt8]
    /// The file utensild created: only this is put into place.
    let identity: FileIdentity
    /// The folder it is written in, held until ``finish()``.
    private var folder: HeldFolder?
    private let folderIdentity: FileIdentity
    private let folderPath: RawPath
    private var fd: Int32
    /// The file as ``finish()`` left it: owned by utensild, its inode, size and change time.
    private var finished: FileStatus?

    init(
        inbox: FolderAnchor, folder: HeldFolder, category: [UInt8], temporary: [UInt8], name: [UInt8], fd: Int32,
        identity: FileIdentity
    ) {
        self.inbox = inbox
        self.folder = folder
        folderIdentity = folder.identity
        folderPath = folder.path
        self.category = category
        self.temporary = temporary
        self.name = name
        self.fd = fd
        self.identity = identity
    }

    deinit { if fd >= 0 { close(fd) } }

    private var shown: String { String(decoding: name, as: UTF8.self) }

    public func write(_ bytes: [UInt8]) throws(UploadRefusal) {
        do {
            try FileOps.writeAll(fd, bytes, path: folderPath.appending(temporary))
        } catch {
            throw .notWritten(shown, error)
        }
    }

    /// The whole file arrived: flushes it to disk and closes it and its folder (it stays
    /// hidden until ``place()``). What it is now is kept: a file swapped in under the hidden
    /// name later (even on the same inode number, freed and handed out again) differs in its
    /// owner, size or change time, and ``place()`` refuses it.
    public func finish() throws(UploadRefusal) {
        defer {
            close(fd)
            fd = -1
            folder = nil
        }
        do throws(SystemError) {
            guard fsync(fd) == 0 else { throw SystemError("fsync", folderPath.appending(temporary)) }
            finished = try FileOps.fstat(fd, path: folderPath.appending(temporary))
        } catch {
            throw .notWritten(shown, error)
        }
    }

    /// Renames the file into place, as `Name (2).jpg` … if the name is taken (never
    /// overwriting), and returns where it is relative to the inbox (the name events carry).
    /// A hidden name that no longer holds the file utensild wrote (a group member swapped it)
    /// is refused, not placed.
    public func place() throws(UploadRefusal) -> String {
        guard let folder = try? heldFolder(), let now = try? folder.status(of: temporary), now.kind == .regular,
              now.identity == identity, finished.map({ $0 == now }) ?? true
        else {
            throw .replaced(shown)
        }
        let dot = name.lastIndex(of: UInt8(ascii: ".")) ?? name.endIndex
        for attempt in 1...100 {
            let candidate = attempt == 1 ? name : Array(name[..<dot]) + Array(" (\(attempt))".utf8) + Array(name[dot...])
            do {
                try folder.renameNoReplace(temporary, to: folder, as: candidate)
                if fd >= 0 { close(fd) }
                fd = -1
                self.folder = nil
                let relative = category.isEmpty ? candidate : category + [HeldFolder.slash] + candidate
                return String(decoding: relative, as: UTF8.self)
            } catch where error.code == EEXIST {
                continue
            } catch {
                discard()
                throw .notPlaced(shown)
            }
        }
        discard()
        throw .notPlaced(shown)
    }

    /// Removes the file (a cut-off or refused upload). If its folder is gone or was swapped,
    /// the file is left to the next start's clean-up of upload leftovers.
    public func discard() {
        if fd >= 0 { close(fd) }
        fd = -1
        try? heldFolder().unlinkIfPresent(temporary)
        folder = nil
    }

    /// The folder the file was created in: the one held while it is written, else opened
    /// again beneath the inbox and checked to be the same folder.
    private func heldFolder() throws(SystemError) -> HeldFolder {
        if let folder { return folder }
        let root = try inbox.folder()
        let reopened = try root.folder(category)
        guard reopened.identity == folderIdentity else { throw SystemError("open", folderPath, code: ENOENT) }
        return reopened
    }
}

/// Why an uploaded file was not taken; ``message`` says what to do.
public enum UploadRefusal: Error, Sendable, Equatable {
    /// The name (as uploaded) and what is wrong with it.
    case badFileName(String, String)
    case badCategory(NameRefusal)
    /// The category's entry in the inbox is a link or a file, not a folder (or it is the
    /// rejected or state folder).
    case categoryNotAFolder(String)
    case inboxUnavailable(SystemError)
    case notWritten(String, SystemError)
    case notPlaced(String)
    /// Its hidden file was swapped for another before it was put into place.
    case replaced(String)

    public var message: String {
        switch self {
        case .badFileName(let name, let problem): "The file \(name) \(problem)."
        case .badCategory(let refusal): refusal.message
        case .categoryNotAFolder(let name):
            "The category \(name) is not a folder for photos in the inbox (it is a link, a file or one of utensild's own folders); choose another category, or ask the administrator to remove it."
        case .inboxUnavailable(let error): "The inbox cannot be written (\(error)); ask the administrator."
        case .notWritten(let name, let error): "\(name) could not be written into the inbox (\(error)); try again later."
        case .notPlaced(let name): "\(name) could not be placed into the inbox; try again later."
        case .replaced(let name): "\(name) was replaced in the inbox by someone else before it was placed; upload it again."
        }
    }
}
