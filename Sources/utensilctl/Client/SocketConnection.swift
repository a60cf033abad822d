import Foundation
import Glibc
import UtensilControlProtocol

/// One connection to the control socket, with plain `socket`/`connect`/`read`/`write`:
/// requests go out as lines, replies come back as lines.
final class SocketConnection {
    let path: String
    private let descriptor: Int32
    /// Bytes read past the last line handed out.
    private var pending: [UInt8] = []
    private var replyTimeoutSeconds: Int

    /// Connects to `path`; replies must start arriving within `replyTimeoutSeconds`
    /// (0: wait for ever, as `events` does).
    init(path: String, replyTimeoutSeconds: Int) throws(ClientError) {
        self.path = path
        self.replyTimeoutSeconds = replyTimeoutSeconds
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else { throw .socketPathTooLong(socket: path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw .unreachable(socket: path, reason: Self.describe(errno))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected != 0 {
            let code = errno
            close(descriptor)
            switch code {
            case EACCES, EPERM: throw .socketPermissionDenied(socket: path, group: Self.guardingGroup(of: path))
            case ECONNREFUSED: throw .unreachable(socket: path, reason: "nothing is listening there")
            case ENOENT: throw .unreachable(socket: path, reason: "no such socket")
            default: throw .unreachable(socket: path, reason: Self.describe(code))
            }
        }
        self.descriptor = descriptor
        setTimeout(SO_SNDTIMEO, seconds: 10)
        setTimeout(SO_RCVTIMEO, seconds: replyTimeoutSeconds)
    }

    deinit { close(descriptor) }

    /// The name of the group that grants access to `path`: the socket's own group, or, when
    /// the socket cannot even be seen (systemd's `RuntimeDirectory=` is `0750`), the group of
    /// the nearest folder above it that can.
    static func guardingGroup(of path: String) -> String? {
        var candidate = path
        while !candidate.isEmpty, candidate != "/" {
            var status = stat()
            if stat(candidate, &status) == 0 { return groupName(status.st_gid) }
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        return nil
    }

    private static func groupName(_ gid: gid_t) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil,
              let name = entry.gr_name else { return nil }
        return String(cString: name)
    }

    /// Sends one request line.
    func send(_ request: ControlRequest) throws(ClientError) {
        let line: Data
        do {
            line = try LineFraming.encode(request)
        } catch {
            throw .unreadableReply("the request could not be encoded: \(error)")
        }
        let failure: Int32? = line.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw .connectionLost(socket: path, reason: Self.describe(failure)) }
    }

    /// The next line the daemon sends (without its newline), or `nil` when it closed.
    func readLine() throws(ClientError) -> [UInt8]? {
        var searchFrom = 0
        while true {
            if let newline = pending[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return line
            }
            searchFrom = pending.count
            guard pending.count <= ControlProtocol.maximumReplyLineBytes else {
                throw .unreadableReply("a reply line is longer than \(ControlProtocol.maximumReplyLineBytes) bytes")
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    throw .timedOut(socket: path, seconds: replyTimeoutSeconds)
                }
                throw .connectionLost(socket: path, reason: Self.describe(code))
            }
            if count == 0 {
                if pending.isEmpty { return nil }
                throw .connectionLost(socket: path, reason: "in the middle of a reply")
            }
            pending.append(contentsOf: chunk[..<count])
        }
    }

    /// Waits for replies for ever from now on (for `events`).
    func waitIndefinitely() {
        replyTimeoutSeconds = 0
        setTimeout(SO_RCVTIMEO, seconds: 0)
    }

    private func setTimeout(_ option: Int32, seconds: Int) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
