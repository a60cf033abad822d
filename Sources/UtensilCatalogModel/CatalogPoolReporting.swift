/// A catalog over a pool of connections (PostgreSQL) that says what its pool is doing, for
/// the metrics.
public protocol CatalogPoolReporting: Sendable {
    var poolReading: CatalogPoolReading { get }
}

/// What a catalog's pool of connections is doing; the totals count since start.
public struct CatalogPoolReading: Sendable, Equatable {
    /// Calls holding a connection now.
    public var inUse: Int
    /// Calls waiting for a connection now.
    public var waiting: Int
    /// The most connections the pool opens (0: not known).
    public var limit: Int
    /// Connections handed to calls.
    public var leases: Int
    /// Seconds calls spent waiting for the connection they got.
    public var waitSeconds: Double
    /// Calls that got no connection (the server unreachable, or none free in time).
    public var leaseFailures: Int
    /// Times the pool was replaced because the server answered again while it could not connect.
    public var renewals: Int

    public init(inUse: Int, waiting: Int, limit: Int, leases: Int, waitSeconds: Double, leaseFailures: Int, renewals: Int) {
        self.inUse = inUse
        self.waiting = waiting
        self.limit = limit
        self.leases = leases
        self.waitSeconds = waitSeconds
        self.leaseFailures = leaseFailures
        self.renewals = renewals
    }
}
