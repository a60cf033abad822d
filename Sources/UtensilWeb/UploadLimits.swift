/// The bounds of `POST /api/v1/uploads` (part of ``WebLimits``). An upload in progress holds
/// at most its connection, the one file it is writing and that file's folder: each file is
/// closed once written, so an upload's open part files are one at a time, a user's at most
/// ``perUser`` and everyone's at most ``inAll``.
public struct UploadLimits: Sendable, Equatable {
    /// Files (parts with a file name) in one upload; one more is refused with `413` and the
    /// files already written are removed.
    public var filesPerRequest: Int
    /// Uploads one signed-in user may have in progress at once; one more is refused with
    /// `429` and `Retry-After`. At least the six connections a browser opens to one site.
    public var perUser: Int
    /// Uploads in progress at once, all users together; one more is refused with `503` and
    /// `Retry-After`.
    public var inAll: Int
    /// An upload's body must arrive whole within this long of its head, however it trickles,
    /// or its connection is closed and its files removed.
    public var bodySeconds: Int64
    /// `Retry-After` of a refusal for too many uploads in progress.
    public static let retryAfterSeconds = 30

    public init(filesPerRequest: Int = 100, perUser: Int = 8, inAll: Int, bodySeconds: Int64 = 600) {
        self.filesPerRequest = filesPerRequest
        self.perUser = perUser
        self.inAll = inAll
        self.bodySeconds = bodySeconds
    }
}
