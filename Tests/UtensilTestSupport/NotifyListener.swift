import Foundation
import Glibc

/// A real `NOTIFY_SOCKET`: an `AF_UNIX` datagram socket that collects what a child process
/// sends with `sd_notify`, so tests wait for `READY=1` instead of sleeping.
public final class NotifyListener: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [String] = []

    public init(folder: URL) throws {
        path = folder.appendingPathComponent("notify-\(UUID().uuidString.prefix(8)).sock").path
        fd = try UnixSocket.bound(to: path, type: SOCK_DGRAM)
        // Read continuously, as systemd does: a datagram queue left full would block the sender.
        let reader = Thread { [weak self] in
            while let self, !self.isClosed {
                self.drain(timeoutMilliseconds: 100)
            }
        }
        reader.start()
    }

    private var closed = false
    private var isClosed: Bool { lock.withLock { closed } }

    deinit {
        lock.withLock { closed = true }
        close(fd)
    }

    /// Every message received so far (each datagram split into its lines).
    public var messages: [String] {
        drain(timeoutMilliseconds: 0)
        return lock.withLock { received }
    }

    /// Waits until a received line satisfies `predicate`, up to `seconds`; returns it.
    @discardableResult
    public func wait(for predicate: (String) -> Bool, seconds: Double = 30) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let line = lock.withLock({ received.first(where: predicate) }) { return line }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                throw TestFailure("no matching sd_notify message within \(seconds) s; got \(lock.withLock { received })")
            }
            drain(timeoutMilliseconds: Int32(min(remaining, 1) * 1000))
        }
    }

    /// Waits for an exact line such as `READY=1`.
    @discardableResult
    public func wait(for line: String, seconds: Double = 30) throws -> String {
        try wait(for: { $0 == line }, seconds: seconds)
    }

    /// Forgets what was received (to wait for a second `READY=1`, say).
    public func reset() {
        drain(timeoutMilliseconds: 0)
        lock.withLock { received.removeAll() }
    }

    private func drain(timeoutMilliseconds: Int32) {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var timeout = timeoutMilliseconds
        while poll(&poller, 1, timeout) > 0 {
            var buffer = [UInt8](repeating: 0, count: 65536)
            // Never block: the background reader and a waiting test may both have seen POLLIN
            // for the same datagram.
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { break }
            let lines = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
            lock.withLock { received.append(contentsOf: lines) }
            timeout = 0
        }
    }
}
