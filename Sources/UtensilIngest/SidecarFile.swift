import Foundation
import Glibc
import UtensilCore

/// Reads a sidecar from `rejected/`, a folder members of the group can write: so the file
/// read may be anything they planted. It is read only if it is a regular file (a symbolic
/// link is not followed, a FIFO does not block) of at most `maximumBytes`.
public enum SidecarFile {
    /// A sidecar utensild writes is a few hundred bytes; anything past this is not one.
    public static let maximumBytes = 65536

    /// The sidecar at `path`, or nil when there is none or it is not a sidecar utensild wrote.
    public static func read(_ path: RawPath) -> RejectionSidecar? {
        guard let bytes = try? contents(path) else { return nil }
        return decode(bytes)
    }

    /// The sidecar `name` (no `/`) directly in the held `folder`, opened relative to it: no
    /// component of the way to it is a path a group member could swap for a link.
    public static func read(_ name: [UInt8], in folder: HeldFolder) -> RejectionSidecar? {
        guard !name.contains(0), !name.contains(HeldFolder.slash),
              let fd = try? folder.openForReading(name) else { return nil }
        defer { close(fd) }
        guard let bytes = try? contents(of: fd, path: folder.path.appending(name)) else { return nil }
        return decode(bytes)
    }

    static func contents(_ path: RawPath) throws(SystemError) -> [UInt8]? {
        let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        guard fd >= 0 else { throw SystemError("open", path) }
        defer { close(fd) }
        return try contents(of: fd, path: path)
    }

    /// The bytes of the open file, if it is a regular file of at most `maximumBytes`.
    private static func contents(of fd: Int32, path: RawPath) throws(SystemError) -> [UInt8]? {
        let status = try FileOps.fstat(fd, path: path)
        guard status.kind == .regular, status.size <= maximumBytes else { return nil }
        return try FileOps.readAll(fd, size: status.size, path: path)
    }

    private static func decode(_ bytes: [UInt8]) -> RejectionSidecar? {
        try? JSONDecoder().decode(RejectionSidecar.self, from: Data(bytes))
    }
}
