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
