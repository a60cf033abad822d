/// What the PostgreSQL catalog's pool of connections reports at a scrape (absent for SQLite).
/// The totals count since start; ``DaemonMetrics`` turns them into counters.
public struct CatalogPoolSample: Sendable {
    /// Catalog calls holding a connection now.
    public var inUse: Int
    /// Catalog calls waiting for a connection now.
    public var waiting: Int
    /// The most connections the pool opens.
    public var limit: Int
    /// Connections handed to calls.
    public var leases: Int
    /// Seconds calls waited for the connection they got.
    public var waitSeconds: Double
    /// Calls that got no connection.
    public var leaseFailures: Int
    /// Times the pool was replaced because the server answered again.
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
