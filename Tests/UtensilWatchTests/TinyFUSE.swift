import Foundation
import Glibc
import Synchronization

/// The smallest FUSE file system that lets `statfs` work on its mount point: answers INIT,
/// STATFS and GETATTR of the root over the raw /dev/fuse protocol, ENOSYS to the rest.
/// Lets the tests see a real FUSE mount without any package (root and /dev/fuse needed).
final class TinyFUSE: Sendable {
    let mountpoint: String
    private let device: Int32
    private let done = Mutex(false)

    /// Mounts on `mountpoint`; `nil` if this machine does not allow it.
    init?(mountpoint: String) {
        guard geteuid() == 0 else { return nil }
        let device = open("/dev/fuse", O_RDWR | O_CLOEXEC)
        guard device >= 0 else { return nil }
        let options = "fd=\(device),rootmode=40000,user_id=0,group_id=0"
        guard mount("utensiltest", mountpoint, "fuse.utensiltest", UInt(MS_NOSUID | MS_NODEV), options) == 0 else {
            close(device)
            return nil
        }
        self.mountpoint = mountpoint
        self.device = device
        let thread = Thread { [self] in serve() }
        thread.name = "tiny-fuse"
        thread.start()
    }

    /// Unmounts; closing the device also fails any request still waiting for an answer.
    func unmount() {
        let first = done.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        umount2(mountpoint, Int32(MNT_DETACH))
        close(device)
    }

    private func serve() {
        var buffer = [UInt8](repeating: 0, count: 1 << 20 + 4096)
        while !done.withLock({ $0 }) {
            var descriptor = pollfd(fd: device, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 200) <= 0 { continue }
            let count = read(device, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == ENOENT { continue }
                return  // ENODEV: unmounted
            }
            guard count >= 40 else { continue }
            let opcode = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }
            let unique = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }
            switch opcode {
            case 26: reply(unique, Self.initReply())
            case 17: reply(unique, Self.statfsReply())
            case 3: reply(unique, Self.rootAttributes())
            case 2, 36, 42: continue  // FORGET, INTERRUPT, BATCH_FORGET: no answer expected
            default: reply(unique, [], error: -ENOSYS)
            }
        }
    }

    private func reply(_ unique: UInt64, _ body: [UInt8], error: Int32 = 0) {
        var message: [UInt8] = []
        Self.put(UInt32(16 + body.count), into: &message)
        Self.put(error, into: &message)
        Self.put(unique, into: &message)
        message += body
        _ = message.withUnsafeBytes { write(device, $0.baseAddress, $0.count) }
    }

    private static func put<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// fuse_init_out (64 bytes): protocol 7.31, nothing optional.
    private static func initReply() -> [UInt8] {
        var out: [UInt8] = []
        put(UInt32(7), into: &out)  // major
        put(UInt32(31), into: &out)  // minor
        put(UInt32(0), into: &out)  // max_readahead
        put(UInt32(0), into: &out)  // flags
        put(UInt16(16), into: &out)  // max_background
        put(UInt16(12), into: &out)  // congestion_threshold
        put(UInt32(4096), into: &out)  // max_write
        put(UInt32(1), into: &out)  // time_gran
        return out + [UInt8](repeating: 0, count: 64 - out.count)
    }

    /// fuse_statfs_out (80 bytes).
    private static func statfsReply() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 40)  // blocks, bfree, bavail, files, ffree
        put(UInt32(4096), into: &out)  // bsize
        put(UInt32(255), into: &out)  // namelen
        put(UInt32(4096), into: &out)  // frsize
        return out + [UInt8](repeating: 0, count: 80 - out.count)
    }

    /// fuse_attr_out (104 bytes) for the root folder.
    private static func rootAttributes() -> [UInt8] {
        var out: [UInt8] = []
        put(UInt64(1), into: &out)  // attr_valid
        put(UInt32(0), into: &out)  // attr_valid_nsec
        put(UInt32(0), into: &out)  // dummy
        put(UInt64(1), into: &out)  // ino
        out += [UInt8](repeating: 0, count: 8 * 5 + 4 * 3)  // size, blocks, a/m/ctime, their nsec
        put(UInt32(S_IFDIR | 0o755), into: &out)  // mode
        put(UInt32(2), into: &out)  // nlink
        return out + [UInt8](repeating: 0, count: 104 - out.count)
    }
}

/// Runs blocking work on its own thread (a FUSE request must not stall the test's executor).
func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
