/// The constants both ends of the control socket agree on.
///
/// The wire format is newline-delimited JSON over a Unix stream socket: one request line,
/// one reply line (`events` keeps streaming). See `docs/PROTOCOL.md`.
public enum ControlProtocol {
    /// The protocol version every message carries as `"v"`.
    public static let version = 1

    /// Where `utensild` listens unless configured otherwise (`control_socket`).
    public static let defaultSocketPath = "/run/utensild/control.sock"

    /// The environment variable `utensilctl` reads for the socket path before the default.
    public static let socketEnvironmentVariable = "UTENSIL_SOCKET"

    /// The longest request line the server reads (newline excluded); a longer one gets a
    /// `request-too-large` reply and the connection is closed.
    public static let maximumLineBytes = 65536

    /// The longest reply line a client should accept (a full page of utensils, a preview).
    public static let maximumReplyLineBytes = 16 * 1024 * 1024

    /// The recommended server limit on connections at once; past it a client gets `busy`.
    public static let maximumClients = 512

    /// The recommended server limit on connections of one user (peer uid) at once, root and
    /// the daemon's own user excepted; past it that user's client gets `busy`.
    public static let maximumClientsPerUser = 64

    /// Of `maximumClients`, the slots kept for root and the daemon's own user.
    public static let reservedClients = 8

    /// The recommended server idle time-out: a connection that sends no complete request
    /// for this long is closed. `events` subscribers are exempt once subscribed.
    public static let idleTimeoutSeconds = 60

    /// The recommended limit on lines waiting for a follower (`events`, `backup`) that does
    /// not read; one more and the follower is told it fell behind and is disconnected.
    public static let maximumFollowerBacklog = 256

    /// How long a follower that fell behind has to take the lines that wait for it before
    /// the server closes the connection anyway.
    public static let fellBehindGraceSeconds = 10

    /// Edge length of the raw RGB preview the server adds to `show --preview` replies.
    public static let previewEdge = 48
}
