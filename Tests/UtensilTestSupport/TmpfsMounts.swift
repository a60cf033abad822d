import Foundation
import Glibc

/// Small tmpfs file systems mounted (as root) on folders of a test world for as long as the
/// test holds them — and not a moment longer: the mounts belong to a tiny guard process that
/// unmounts them as soon as its stdin closes, which happens when the test releases them *or
/// dies*, even by `kill -9`. So a crashed test leaves nothing mounted on the host.
///
/// (Why not a private mount namespace? The daemon could run in one with `nsenter`, but the
/// test must open the catalog too, and SQLite resolves symbolic links in every path it opens:
/// `/proc/PID/root/…` would silently become the host's path, and another database.)
public final class TmpfsMounts: @unchecked Sendable {
    private let shell: ShellGuard

    /// Mounts a tmpfs of `size` bytes (rounded up to pages) on each folder in turn, creating the
    /// folder first (so one may lie inside an earlier one); with `readOnly`, mounted read-only
    /// (as a unit's `ProtectSystem=strict` shows the file system to its service).
    public init(_ mounts: [(folder: URL, size: Int)], readOnly: Bool = false) throws {
        guard geteuid() == 0 else {
            throw TestFailure("mounting a tmpfs needs root; run the stress tests as root (CI and `make stress` do)")
        }
        let setup = mounts.map {
            "mkdir -p \(ShellGuard.quoted($0.folder.path))\nmount -t tmpfs -o \(readOnly ? "ro," : "")size=\($0.size),mode=0755 utensil-test \(ShellGuard.quoted($0.folder.path))"
        }.joined(separator: "\n")
        let teardown = mounts.reversed().map { "umount --lazy \(ShellGuard.quoted($0.folder.path))" }.joined(separator: "\n")
        shell = try ShellGuard(setup: setup, teardown: teardown, what: "mount a tmpfs")
    }

    /// Unmounts (lazily: a process still using a mount keeps it until it lets go).
    public func release() { shell.release() }

    /// Fills the file system holding `folder` with a file `name` until it is full; returns the
    /// filler's URL (remove it to free the space).
    @discardableResult
    public static func fill(_ folder: URL, name: String = "filler") throws -> URL {
        let filler = folder.appendingPathComponent(name)
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TestFailure("create \(filler.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xA5, count: 1 << 16)
        while true {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                guard errno == ENOSPC else { throw TestFailure("fill \(filler.path): \(String(cString: strerror(errno)))") }
                break
            }
        }
        // The last partial page, too.
        var byte: UInt8 = 0
        while write(fd, &byte, 1) == 1 {}
        return filler
    }
}
