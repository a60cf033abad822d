import Foundation
import Glibc
import UtensilCore

/// Folder trees too deep for path-taking system calls (and for Foundation), made and read by
/// descriptor.
public enum DeepFolder {
    /// Makes `levels` nested folders named `component` below `root`, writes `bytes` as `name`
    /// in the deepest one, and returns the path of that file relative to `root`.
    @discardableResult
    public static func make(in root: String, levels: Int, component: String, file name: String, bytes: Data) throws -> String {
        try makeFolders(in: root, levels: levels, component: component)
        return try write(bytes, as: name, in: root, levels: levels, component: component)
    }

    /// Makes `levels` nested folders named `component` below `root` (those already there are kept).
    public static func makeFolders(in root: String, levels: Int, component: String) throws {
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for _ in 0..<levels {
            guard fd >= 0, mkdirat(fd, component, 0o755) == 0 || errno == EEXIST else { throw TestFailure("mkdirat: \(errno)") }
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            fd = next
        }
        guard fd >= 0 else { throw TestFailure("openat: \(errno)") }
        close(fd)
    }

    /// Writes `bytes` as `name` into the deepest of `levels` existing folders named `component`
    /// below `root` (created, written, closed, as `cp` does); returns its path relative to `root`.
    @discardableResult
    public static func write(_ bytes: Data, as name: String, in root: String, levels: Int, component: String) throws -> String {
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for _ in 0..<levels where fd >= 0 {
            let next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            fd = next
        }
        guard fd >= 0 else { throw TestFailure("openat: \(errno)") }
        defer { close(fd) }
        let file = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw TestFailure("create \(name): \(errno)") }
        defer { close(file) }
        let written = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("write \(name): \(errno)") }
        return Array(repeating: component, count: levels).joined(separator: "/") + "/" + name
    }

    /// Every entry below `root` that is not a folder, at any depth (links to folders are not
    /// followed, and do not count): its path relative to `root` and, for a regular file or a
    /// link to one, its bytes.
    public static func files(below root: String) -> [(path: String, bytes: Data?)] {
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        var result: [(path: String, bytes: Data?)] = []
        collect(fd, prefix: "", into: &result)
        return result
    }

    /// Lists the open folder `fd` (and closes it) into `result`, descending into sub-folders.
    private static func collect(_ fd: Int32, prefix: String, into result: inout [(path: String, bytes: Data?)]) {
        guard let directory = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = String(decoding: DirectoryEntryName.bytes(of: entry), as: UTF8.self)
            if name == "." || name == ".." { continue }
            var info = stat()
            guard fstatat(dirfd(directory), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let path = prefix + name
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                let child = openat(dirfd(directory), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 { collect(child, prefix: path + "/", into: &result) }
            case S_IFREG:
                result.append((path, contents(of: name, in: dirfd(directory), following: false)))
            case S_IFLNK:
                // As the daemon would read it if it followed: a link to a folder or to nothing
                // is no file; a link to a file counts as that file's bytes.
                var target = stat()
                guard fstatat(dirfd(directory), name, &target, 0) == 0, target.st_mode & S_IFMT != S_IFDIR else { continue }
                result.append((path, contents(of: name, in: dirfd(directory), following: true)))
            default:
                result.append((path, nil))
            }
        }
    }

    private static func contents(of name: String, in folder: Int32, following: Bool) -> Data? {
        let fd = openat(folder, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (following ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }
}
