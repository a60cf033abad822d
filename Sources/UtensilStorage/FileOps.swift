import CUtensilSupport
import Foundation
import Glibc
import UtensilCore

/// The system calls the storage and the engine use, each throwing a `SystemError` that names the path.
public enum FileOps {
    public static func lstat(_ path: RawPath) throws(SystemError) -> FileStatus {
        var raw = stat()
        let result = path.withCString { Glibc.lstat($0, &raw) }
        guard result == 0 else { throw SystemError("lstat", path) }
        return FileStatus(raw)
    }

    public static func fstat(_ fd: Int32, path: RawPath) throws(SystemError) -> FileStatus {
        var raw = stat()
        guard Glibc.fstat(fd, &raw) == 0 else { throw SystemError("fstat", path) }
        return FileStatus(raw)
    }

    /// Reads up to `count` bytes from the start of `fd` (fewer if the file is shorter).
    public static func readPrefix(_ fd: Int32, count: Int, path: RawPath) throws(SystemError) -> [UInt8] {
        var failure: SystemError?
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            do throws(SystemError) {
                initialized = try read(fd, into: UnsafeMutableRawBufferPointer(raw), path: path)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return buffer
    }

    /// Reads exactly `size` bytes from the start of `fd`. Returns nil when the file is
    /// shorter or longer than that (it is still being written).
    public static func readAll(_ fd: Int32, size: Int, path: RawPath) throws(SystemError) -> [UInt8]? {
        // Not zero-filled first: every byte is overwritten by the read, or the array is dropped.
        var failure: SystemError?
        var short = false
        let buffer = [UInt8](unsafeUninitializedCapacity: size) { raw, initialized in
            do throws(SystemError) {
                short = try read(fd, into: UnsafeMutableRawBufferPointer(raw), path: path) < size
            } catch {
                failure = error
            }
            // Only a complete read is kept; otherwise the bytes read so far are discarded.
            initialized = failure == nil && !short ? size : 0
        }
        if let failure { throw failure }
        if short { return nil }
        var probe: UInt8 = 0
        let extra = pread(fd, &probe, 1, off_t(size))
        if extra != 0 { return nil }
        return buffer
    }

    /// The bytes of the regular file `name` in `folder` (a link is not followed, a FIFO does
    /// not block); nil when it is not a regular file, is longer than `limit`, or changes size
    /// while it is read.
    public static func readRegularFile(_ name: [UInt8], in folder: HeldFolder, limit: Int = .max) throws(SystemError) -> [UInt8]? {
        let fd = try folder.openForReading(name)
        defer { close(fd) }
        let shown = folder.path.appending(name)
        let status = try fstat(fd, path: shown)
        guard status.kind == .regular, status.size <= limit else { return nil }
        return try readAll(fd, size: status.size, path: shown)
    }

    /// Reads up to `count` bytes of `fd` from `offset` on (fewer at the end of the file).
    public static func readRange(_ fd: Int32, offset: Int64, count: Int, path: RawPath) throws(SystemError) -> [UInt8] {
        var failure: SystemError?
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            do throws(SystemError) {
                initialized = try read(fd, into: UnsafeMutableRawBufferPointer(raw), at: offset, path: path)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return buffer
    }

    /// Fills `buffer` from `start` in `fd` on; returns how many bytes were read (fewer at the end of the file).
    private static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at start: Int64 = 0, path: RawPath) throws(SystemError) -> Int {
        var offset = 0
        while offset < buffer.count {
            let count = pread(fd, buffer.baseAddress! + offset, buffer.count - offset, off_t(start) + off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", path)
            }
            if count == 0 { break }
            offset += count
        }
        return offset
    }

    /// Writes `bytes` to a new file `name` in `folder` through a temporary name there
    /// (create exclusively, write, rename): `temporaryPrefix` and a random UUID (a host's own
    /// prefix in a folder hosts share). With `durable` the file is fsynced before the
    /// rename; without, its writeback is only started, and it is durable after ``fsyncFile``.
    /// Either way the caller fsyncs the folder (a group of files can share that fsync).
    public static func writeThroughTemporary(
        _ bytes: [UInt8], in folder: HeldFolder, as name: [UInt8], mode: mode_t = LocalFolderStorage.fileMode, durable: Bool,
        temporaryPrefix: String = temporaryPrefix
    ) throws(SystemError) {
        // A short random temporary name: the final name may already be as long as a name can be.
        let temporary = Array((temporaryPrefix + UUID().uuidString).utf8)
        let fd = try folder.createExclusively(temporary, mode: mode)
        let shown = folder.path.appending(temporary)
        do throws(SystemError) {
            try writeAll(fd, bytes, path: shown)
            if durable {
                guard fsync(fd) == 0 else { throw SystemError("fsync", shown) }
            } else {
                _ = utensil_start_writeback(fd)  // only a hint
            }
            guard close(fd) == 0 else { throw SystemError("close", shown) }
        } catch {
            close(fd)
            try? folder.unlink(temporary)
            throw error
        }
        do throws(SystemError) {
            try folder.rename(temporary, to: folder, as: name)
        } catch {
            try? folder.unlink(temporary)
            throw error
        }
    }

    /// Makes a file written by ``writeThroughTemporary(_:in:as:mode:durable:)`` durable.
    public static func fsyncFile(_ name: [UInt8], in folder: HeldFolder) throws(SystemError) {
        let fd = try folder.openForReading(name)
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SystemError("fsync", folder.path.appending(name)) }
    }

    /// Files being written carry this prefix; start-up reconciliation removes leftovers.
    public static let temporaryPrefix = ".tmp-"

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: RawPath) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + offset, raw.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("write", path)
            }
            offset += count
        }
    }

    /// Whether anything (a link included) is at `path`.
    public static func exists(_ path: RawPath) -> Bool {
        var raw = stat()
        return path.withCString { Glibc.lstat($0, &raw) } == 0
    }

    public static func makeDirectory(_ path: RawPath, mode: mode_t = LocalFolderStorage.folderMode) throws(SystemError) {
        let result = path.withCString { mkdir($0, mode) }
        guard result == 0 || errno == EEXIST else { throw SystemError("create folder", path) }
    }
}
