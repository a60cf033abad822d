import Foundation
import Glibc

/// A lock shared by every test process on the machine (`flock` on a file in `/run/lock`),
/// for what the machine has only one of: a kernel limit, a free subnet. `make unit-test`
/// runs suites in several processes at once; within one process, tests run one at a time.
public enum MachineLock {
    /// Runs `body` holding the lock named `name`; waits for another process holding it.
    public static func holding<Result>(_ name: String, _ body: () throws -> Result) throws -> Result {
        let path = "/run/lock/utensild-tests-\(name).lock"
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TestFailure("cannot open \(path): \(String(cString: strerror(errno))); the tests run as root (CI does)")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw TestFailure("cannot lock \(path): \(String(cString: strerror(errno)))") }
        }
        return try body()
    }
}

/// The kernel's `fs.inotify.max_queued_events`, lowered while one inotify instance is made
/// (the kernel reads it at `inotify_init`, so instances made before or after keep theirs).
/// The limit is the whole machine's: the lowering holds ``MachineLock``, so that two test
/// processes never take each other's lowered value for the original.
public enum InotifyQueueLimit {
    public static let file = "/proc/sys/fs/inotify/max_queued_events"

    /// The limit as it is.
    public static func current() throws -> Int {
        let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int(text) else { throw TestFailure("\(file) holds \(text), not a number") }
        return value
    }

    /// Runs `make` with the limit lowered to `limit`, then puts the original back, whether
    /// `make` returns or throws. Needs root (CI runs the tests as root).
    public static func whileLowered<Result>(to limit: Int, _ make: () throws -> Result) throws -> Result {
        try MachineLock.holding("inotify-queue-limit") {
            let original = try current()
            do {
                try "\(limit)\n".write(toFile: file, atomically: false, encoding: .utf8)
            } catch {
                throw TestFailure("cannot lower \(file) to \(limit) (\(error)); the tests run as root (CI does)")
            }
            defer { try? "\(original)\n".write(toFile: file, atomically: false, encoding: .utf8) }
            return try make()
        }
    }
}
