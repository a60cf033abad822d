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
}
