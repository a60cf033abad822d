import Glibc
import UtensilControlProtocol

/// The gallery listener's bounds: how many connections in all and from one address, how
/// many of them may be live event streams, and how long a connection may idle or dribble a
/// request. A stranger who reaches the listener can hold at most these, so the control
/// socket, the watcher and the catalog keep descriptors, and a few addresses cannot take
/// every slot from a new visitor.
public struct WebLimits: Sendable, Equatable {
    /// Open connections in all.
    public var connections: Int
    /// Open connections from one IP address (not counted on a Unix socket, whose one peer is
    /// the reverse proxy) while fewer than half of ``connections`` are open.
    public var connectionsPerAddress: Int
    /// Open connections from one IP address once half of ``connections`` are open: the other
    /// half is shared out in small portions, so that a few addresses cannot fill it.
    public var connectionsPerAddressWhenBusy: Int
    /// Live event streams (`GET /api/v1/events`, one per open gallery page) in all; each
    /// holds its connection for as long as the page is open.
    public var eventStreams: Int
    /// Live event streams from one IP address.
    public var eventStreamsPerAddress: Int
    /// A connection must send a complete request head within this long of connecting or of
    /// its previous response, or it is closed (idle and header time-out).
    public var idleSeconds: Int64
    /// A request body (other than an upload's, ``UploadLimits/bodySeconds``) must arrive whole
    /// within this long of its head, however it trickles, or its connection is closed.
    public var bodySeconds: Int64
    /// Files per upload, uploads in progress per user and in all, and an upload's deadline.
    public var uploads: UploadLimits
    /// The gallery takes no new connection and opens no upload file while fewer than this
    /// many descriptors are free under `RLIMIT_NOFILE` (it answers `503` instead): they stay
    /// for the control socket, the watcher, the ingest and the catalog.
    public var descriptorsKeptFree: Int

    /// Limits with `connections` in all; the per-address share when busy and the event
    /// streams' share follow from it unless given.
    public init(
        connections: Int, connectionsPerAddress: Int, connectionsPerAddressWhenBusy: Int? = nil,
        eventStreams: Int? = nil, eventStreamsPerAddress: Int = 16, idleSeconds: Int64 = 30, bodySeconds: Int64 = 60,
        uploads: UploadLimits? = nil, descriptorsKeptFree: Int = reservedDescriptors
    ) {
        self.connections = connections
        self.connectionsPerAddress = connectionsPerAddress
        self.connectionsPerAddressWhenBusy = connectionsPerAddressWhenBusy ?? max(2, connections / 16)
        self.eventStreams = eventStreams ?? max(1, connections / 2)
        self.eventStreamsPerAddress = eventStreamsPerAddress
        self.idleSeconds = idleSeconds
        self.bodySeconds = bodySeconds
        self.uploads = uploads ?? UploadLimits(inAll: max(2, connections / 2))
        self.descriptorsKeptFree = descriptorsKeptFree
    }

    /// Descriptors kept out of the gallery's reach: every client the control socket admits
    /// (512), and 128 for the catalog, the watcher, ingests and logging. Under the unit's
    /// `LimitNOFILE=1024` the gallery's worst case (192 connections, each sending a file) and
    /// the control socket's together stay within the limit.
    public static let reservedDescriptors = ControlProtocol.maximumClients + 128

    /// The limits for this process's descriptor limit (`RLIMIT_NOFILE`, systemd's
    /// `LimitNOFILE=`): an upload also holds the file it writes and its folder, so the gallery
    /// gets half of what the reserve leaves, between 8 and 512 connections, and uploads in
    /// progress are at most half the connections; 64 per address while
    /// the listener is less than half full, a sixteenth of the connections after that; half
    /// of the connections for event streams, 16 of them per address.
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
