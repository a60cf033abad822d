import Foundation
import Glibc

/// A chain of nested folders too deep for path-taking system calls, made by descriptor.
public enum DeepFolder {
    /// Makes `levels` nested folders named `component` below `root`, writes `bytes` as `name`
    /// in the deepest one, and returns the path of that file relative to `root`.
    @discardableResult
    public static func make(in root: String, levels: Int, component: String, file name: String, bytes: Data) throws -> String {
        var fd = open(root, O_RDONLY | O_DIRECTORY)
        for _ in 0..<levels {
            guard fd >= 0, mkdirat(fd, component, 0o755) == 0 else { throw TestFailure("mkdirat: \(errno)") }
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
        }
        guard fd >= 0 else { throw TestFailure("openat: \(errno)") }
        defer { close(fd) }
        let file = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard file >= 0 else { throw TestFailure("create \(name): \(errno)") }
        defer { close(file) }
        let written = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("write \(name): \(errno)") }
        return Array(repeating: component, count: levels).joined(separator: "/") + "/" + name
    }
}
