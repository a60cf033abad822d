import Foundation
import Glibc
import Synchronization
import UtensilControlProtocol

/// A stand-in for utensild's control socket: a real Unix socket in a temporary folder,
/// served by one thread that answers each request with the lines `answer` returns.
final class CannedDaemon: Sendable {
    /// What to send back for a request, and whether to close the connection afterwards.
    struct Answer: Sendable {
        var lines: [String]
        var thenClose = false
    }

    let folder: URL
    let socketPath: String
    private let listener: Int32
    private let answer: @Sendable (ControlRequest) -> Answer
    private let received = Mutex<[ControlRequest]>([])
    private let finished = DispatchSemaphore(value: 0)

    /// Binds the socket and starts answering.
    init(answer: @escaping @Sendable (ControlRequest) -> Answer) throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("utensilctl-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        socketPath = folder.appendingPathComponent("control.sock").path
        self.answer = answer
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 8) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        Thread.detachNewThread { [self] in serve() }
    }

    /// A daemon that answers every request with `payload`, whatever it is.
    convenience init(replying reply: ControlReply) throws {
        let line = String(decoding: try LineFraming.encode(reply).dropLast(), as: UTF8.self)
        try self.init { _ in Answer(lines: [line]) }
    }

    /// The requests received so far, in order.
    var requests: [ControlRequest] { received.withLock { $0 } }

    /// Stops answering and removes the folder.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
        close(listener)
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { close(listener) }

    private func serve() {
        defer { finished.signal() }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            handle(connection)
            close(connection)
        }
    }

    /// One connection at a time is all the CLI needs.
    private func handle(_ connection: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                let reply: Answer
                do {
                    let request = try LineFraming.decodeRequest(line)
                    received.withLock { $0.append(request) }
                    reply = answer(request)
                } catch {
                    reply = Answer(lines: [Self.line(.failure(error))])
                }
                for text in reply.lines { send(text + "\n", to: connection) }
                if reply.thenClose { return }
            }
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            pending += chunk[..<count]
        }
    }

    private func send(_ text: String, to connection: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// `reply` as the line the daemon would send, without its newline.
    static func line(_ reply: ControlReply) -> String {
        String(decoding: ((try? LineFraming.encode(reply)) ?? Data()).dropLast(), as: UTF8.self)
    }
}
