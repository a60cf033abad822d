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
    public let guardProcess: Process
    private let keepAlive = Pipe()
    public let folders: [URL]

    /// Mounts a tmpfs of `size` bytes (rounded up to pages) on each folder, which must exist.
    public init(_ mounts: [(folder: URL, size: Int)]) throws {
        guard geteuid() == 0 else {
            throw TestFailure("mounting a tmpfs needs root; run the stress tests as root (CI and `make stress` do)")
        }
        folders = mounts.map(\.folder)
        var script = "set -e\n"
        for mount in mounts {
            script += "mount -t tmpfs -o size=\(mount.size),mode=0755 utensil-test '\(mount.folder.path)'\n"
        }
        script += "echo ready\nset +e\ncat >/dev/null\n"
        for mount in mounts.reversed() {
            script += "umount --lazy '\(mount.folder.path)'\n"
        }
        guardProcess = Process()
        guardProcess.executableURL = URL(fileURLWithPath: "/bin/sh")
        guardProcess.arguments = ["-c", script]
        let output = Pipe()
        let errors = Pipe()
        guardProcess.standardInput = keepAlive
        guardProcess.standardOutput = output
        guardProcess.standardError = errors
        try guardProcess.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.contains("ready") else {
            let message = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
            release()
            throw TestFailure("could not mount a tmpfs: \(message)")
        }
    }

    deinit { release() }

    /// Unmounts (lazily: a process still using a mount keeps it until it lets go).
    public func release() {
        try? keepAlive.fileHandleForWriting.close()
        if guardProcess.isRunning { guardProcess.waitUntilExit() }
    }

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
