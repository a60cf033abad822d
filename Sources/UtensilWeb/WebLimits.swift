import Glibc
import UtensilControlProtocol

/// The gallery listener's bounds: how many connections in all and from one address, and how
/// long a connection may idle or dribble a request. A stranger who reaches the listener can
/// hold at most these, so the control socket, the watcher and the catalog keep descriptors.
public struct WebLimits: Sendable, Equatable {
    /// Open connections in all.
    public var connections: Int
    /// Open connections from one IP address (not counted on a Unix socket, whose one peer is
    /// the reverse proxy).
    public var connectionsPerAddress: Int
    /// A connection must send a complete request head within this long of connecting or of
    /// its previous response, or it is closed (idle and header time-out).
    public var idleSeconds: Int64
    /// A request body that sends nothing for this long is cut off.
    public var bodySeconds: Int64

    public init(connections: Int, connectionsPerAddress: Int, idleSeconds: Int64 = 30, bodySeconds: Int64 = 60) {
        self.connections = connections
        self.connectionsPerAddress = connectionsPerAddress
        self.idleSeconds = idleSeconds
        self.bodySeconds = bodySeconds
    }

    /// Descriptors kept out of the gallery's reach: every client the control socket admits
    /// (512), and 128 for the catalog, the watcher, ingests and logging. Under the unit's
    /// `LimitNOFILE=1024` the gallery's worst case (192 connections, each sending a file) and
    /// the control socket's together stay within the limit.
    public static let reservedDescriptors = ControlProtocol.maximumClients + 128

    /// The limits for this process's descriptor limit (`RLIMIT_NOFILE`, systemd's
    /// `LimitNOFILE=`): each connection may also hold a file it sends, so the gallery gets
    /// half of what the reserve leaves, between 8 and 512 connections; 64 per address.
    public static func forDescriptorLimit(_ limit: Int) -> WebLimits {
        WebLimits(connections: min(512, max(8, (limit - reservedDescriptors) / 2)), connectionsPerAddress: 64)
    }

    /// ``forDescriptorLimit(_:)`` for this process's soft limit.
    public static var current: WebLimits {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return forDescriptorLimit(1024) }
        return forDescriptorLimit(Int(clamping: min(limit.rlim_cur, rlim_t(Int.max / 2))))
    }
}
