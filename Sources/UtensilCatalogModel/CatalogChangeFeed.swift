/// How hosts sharing one catalog tell each other of their changes, live: each host publishes
/// what it announces locally, and follows what every other host publishes.
///
/// A catalog of one host (SQLite) has no feed. The PostgreSQL catalog's feed is
/// `PostgresChangeFeed` (`LISTEN/NOTIFY`). A change is an opaque text (the daemon's event
/// JSON) with the name of the host that published it; a feed never hands a host its own
/// changes. Nothing is stored: a change published while a host does not follow (it is
/// stopped, or cut off from the catalog) never reaches it.
public protocol CatalogChangeFeed: Sendable {
    /// This host's name: changes published under it are not followed back.
    var host: String { get }

    /// Sends `payload` to every host following the feed now.
    /// - Throws: ``CatalogChangeFeedError/tooLarge(bytes:limit:)`` when it cannot be carried,
    ///   ``CatalogChangeFeedError/unavailable(_:)`` when the catalog cannot be reached.
    func publish(_ payload: String) async throws(CatalogChangeFeedError)

    /// Follows the other hosts' changes: calls `listening` once the feed is subscribed (from
    /// then on no change is missed), then `receive` for each change, in the order published.
    /// Returns when the calling task is cancelled.
    /// - Throws: ``CatalogChangeFeedError/unavailable(_:)`` when the subscription cannot be made
    ///   or is lost; the caller follows again later (changes in between are not replayed).
    func follow(
        listening: @Sendable () -> Void, receive: @Sendable (CatalogChange) async -> Void
    ) async throws(CatalogChangeFeedError)
}

/// One change another host published on a ``CatalogChangeFeed``.
public struct CatalogChange: Sendable, Equatable {
    /// The `host_name` of the host that published it.
    public var host: String
    /// What it published (for utensild, an event's JSON).
    public var payload: String

    public init(host: String, payload: String) {
        self.host = host
        self.payload = payload
    }
}

/// Why a change could not be published or followed.
public enum CatalogChangeFeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The change is larger than the feed carries; it is not sent (other hosts do not see it).
    case tooLarge(bytes: Int, limit: Int)
    /// The catalog cannot be reached just now; follow again (or publish the next change) later.
    case unavailable(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            "the change is \(bytes) bytes, more than the \(limit) other hosts can be sent; it is shown on this host only"
        case .unavailable(let detail):
            "the catalog's change feed is unavailable (\(detail)); other hosts' changes are followed again once it answers"
        }
    }
}
