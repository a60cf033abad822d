import Glibc

/// Who is at the other end of a connection, from the kernel (`SO_PEERCRED`): it cannot lie.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "uid \(uid) pid \(pid)" }

    /// Whether this peer may change things (`delete`, `rename`, `retry`): root, the daemon's
    /// own user, and members of the socket's group.
    public func mayChange(socketGroup: UInt32) -> Bool {
        if uid == 0 || uid == geteuid() || gid == socketGroup { return true }
        return Self.groups(ofUser: uid, primary: gid).contains(socketGroup)
    }

    /// The supplementary groups of a user, from the group database.
    static func groups(ofUser uid: UInt32, primary: UInt32) -> [UInt32] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, let found = result,
              let name = found.pointee.pw_name
        else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primary, &groups, &count) >= 0 else { return [] }
        }
        return Array(groups.prefix(Int(count)))
    }
}
