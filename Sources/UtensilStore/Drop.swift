import UtensilCore
import UtensilStorage
/// One entry of the inbox that is to become a utensil or a rejection.
public struct Drop: Sendable, Hashable, CustomStringConvertible {
    /// Full path of the entry.
    public var path: RawPath
    /// Path relative to the inbox (`Holiday/Spoon.jpg`).
    public var inboxPath: [UInt8]
    /// What `lstat` said when the drop was found.
    public var status: FileStatus

    public var fileName: [UInt8] { path.lastComponent }
    public var description: String { inboxPath.lossyString }

    public init(path: RawPath, inboxPath: [UInt8], status: FileStatus) {
        self.path = path
        self.inboxPath = inboxPath
        self.status = status
    }
}

/// Where a drop is, held: the folder it is in (resolved beneath the inbox, never through a
/// link) and its name there. Every look, move and removal of the drop goes through this.
package struct DropLocation: Sendable {
    package let folder: HeldFolder
    package let name: [UInt8]

    package init(folder: HeldFolder, name: [UInt8]) {
        self.folder = folder
        self.name = name
    }

    /// What the entry is now (a link described, not followed).
    package func status() throws(SystemError) -> FileStatus { try folder.status(of: name) }
}

/// What a drop must still be for the daemon to move or remove it.
package enum DropExpectation: Sendable {
    /// The same file (device and inode): for a drop that was never read (a link, a FIFO, one
    /// that never settled).
    case sameFile(FileIdentity)
    /// Exactly the file that was read: same device, inode, size, modification and change time.
    /// A photo copied onto the same name meanwhile (`cp` rewrites the inode) fails this.
    case unchanged(FileStatus)

    package func isMet(by now: FileStatus) -> Bool {
        switch self {
        case .sameFile(let identity):
            now.identity == identity
        case .unchanged(let read):
            now.identity == read.identity && now.size == read.size
                && now.modificationNanoseconds == read.modificationNanoseconds
                && now.changeNanoseconds == read.changeNanoseconds
        }
    }
}
