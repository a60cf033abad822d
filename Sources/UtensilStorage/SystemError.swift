import Glibc

/// A failed system call, with what was being done and to which path.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32

    public init(_ operation: String, _ path: CustomStringConvertible, code: Int32 = errno) {
        self.operation = operation
        self.path = path.description
        self.code = code
    }

    /// The disk or the user's quota is full.
    public var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }
    /// The file or folder is gone.
    public var isNotFound: Bool { code == ENOENT || code == ENOTDIR }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }
}
