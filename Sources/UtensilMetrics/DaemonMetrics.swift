import CoreMetrics
import Foundation
import Prometheus
import Synchronization
import UtensilCatalogModel

/// The daemon's metrics, in a Prometheus registry of its own (no global `MetricsSystem`):
/// counters and histograms recorded as things happen, gauges read from the daemon when
/// `GET /metrics` is scraped (``exposition(_:)``). Every series carries the label
/// `host` (`host_name`). Names and meanings: docs/OPERATIONS.md "Metrics".
public final class DaemonMetrics: Sendable {
    /// This host's name, the `host` label of every series.
    public let host: String
    private let registry = PrometheusCollectorRegistry()

    private let ingested: Prometheus.Counter
    private let ingestDuration: DurationHistogram
    private let watcherOverflows: Prometheus.Counter
    private let catalogErrors: Prometheus.Counter
    private let catalogCommit: DurationHistogram
    private let queued: Prometheus.Gauge
    private let inFlight: Prometheus.Gauge
    private let utensils: Prometheus.Gauge
    private let catalogUp: Prometheus.Gauge
    private let eventSeq: Prometheus.Gauge
    private let remoteEventDelay: Prometheus.Gauge
    private let catalogDownSince: Prometheus.Gauge
    private let memoryHeld: Prometheus.Gauge
    private let memoryBudget: Prometheus.Gauge
    private let memoryWaits: Prometheus.Counter
    /// The waits already counted in ``memoryWaits`` (the budget keeps its own tally).
    private let countedMemoryWaits = Mutex(0)
    /// The catalog pool's totals already counted, by metric name (the pool keeps its own tally).
    private let countedPool = Mutex([String: Double]())

    /// Buckets of the ingest and commit histograms: a small photo commits in milliseconds, a
    /// 12 MP one takes a few tenths of a second, a bomb waiting for memory seconds.
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]

    public init(host: String) {
        self.host = host
        let registry = registry
        let labels = [("host", host)]
        func counter(_ name: String, _ help: String) -> Prometheus.Counter {
            registry.makeCounter(descriptor: Self.named(name, help), labels: labels)
        }
        func gauge(_ name: String, _ help: String) -> Prometheus.Gauge {
            registry.makeGauge(descriptor: Self.named(name, help), labels: labels)
        }
        func histogram(_ name: String, _ help: String) -> DurationHistogram {
            registry.makeDurationHistogram(descriptor: Self.named(name, help), labels: labels, buckets: Self.durationBuckets)
        }
        ingested = counter(
            "utensild_drops_ingested_total",
            "Drops that became utensils since start.")
        ingestDuration = histogram(
            "utensild_ingest_duration_seconds",
            "From a worker taking a drop to its outcome being durable (ingested or rejected).")
        watcherOverflows = counter(
            "utensild_watcher_overflows_total",
            "Times the inotify queue overflowed (each is followed by a full rescan).")
        catalogErrors = counter(
            "utensild_catalog_errors_total",
            "Drops left for a retry because the catalog could not be written (busy, read-only, unreachable).")
        catalogCommit = histogram(
            "utensild_catalog_commit_duration_seconds",
            "One group commit of prepared ingests: the transaction and its fsyncs.")
        queued = gauge(
            "utensild_queue_depth",
            "Drops known but not being ingested: settling, ready, or waiting for a retry.")
        inFlight = gauge(
            "utensild_ingests_in_flight",
            "Drops being ingested now.")
        utensils = gauge(
            "utensild_catalog_utensils",
            "Utensils in the catalog, as utensilctl status counts them.")
        catalogUp = gauge(
            "utensild_catalog_up",
            "1 when the catalog answered this scrape within 1.5 s, else 0.")
        catalogDownSince = gauge(
            "utensild_catalog_down_since_seconds",
            "While utensild_catalog_up is 0: since when the catalog has not answered (Unix time), else 0.")
        eventSeq = gauge(
            "utensild_events_seq",
            "The newest seq of the catalog's event log shown to this host's followers; hosts sharing a catalog that differ here for long are behind.")
        remoteEventDelay = gauge(
            "utensild_remote_event_delay_seconds",
            "How long after it happened the last event of another host reached this host's followers.")
        memoryHeld = gauge(
            "utensild_decoding_memory_bytes",
            "Bytes that reading and decoding drops hold now (within memory_budget).")
        memoryBudget = gauge(
            "utensild_decoding_memory_budget_bytes",
            "memory_budget.")
        memoryWaits = counter(
            "utensild_decoding_memory_waits_total",
            "Times a drop waited for its share of memory_budget since start.")
    }

    /// A factory for code that records through swift-metrics' API (the web gallery): what it
    /// makes lands in this registry, with the `host` label added and its help text from
    /// ``factoryHelpTexts``.
    public var factory: any MetricsFactory {
        HelpfulMetricsFactory(
            registry: registry, host: host, helpTexts: Self.factoryHelpTexts, durationBuckets: Self.durationBuckets)
    }

    /// The `# HELP` text of each metric recorded through ``factory`` (Prometheus wants one for
    /// every family, and swift-metrics' API has no place for it).
    static let factoryHelpTexts: [String: String] = [
        "utensild_web_requests_total":
            "Web gallery requests since start, by route pattern (NotFound: no route), method and status.",
        "utensild_web_request_duration_seconds":
            "Time from a web gallery request to its response head, by route pattern.",
    ]

    /// A metric's full name and its `# HELP` line.
    private static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    // MARK: - Recording

    public func recordIngested(after duration: Duration) {
        ingested.increment()
        ingestDuration.record(duration)
    }

    /// `reason`: the wire name, such as `corrupt-image`.
    public func recordRejected(reason: String, after duration: Duration) {
        labelledCounter("utensild_drops_rejected_total", "Drops moved to rejected/, by reason, since start.", [("reason", reason)]).increment()
        ingestDuration.record(duration)
    }

    public func recordCatalogError() { catalogErrors.increment() }

    /// The newest `seq` of the catalog's event log this host has handed to its followers.
    public func recordEventSeq(_ seq: Int64) { eventSeq.set(seq) }

    /// How long after it happened another host's event reached this host's followers.
    public func recordRemoteEventDelay(_ seconds: TimeInterval) { remoteEventDelay.set(max(0, seconds)) }

    public func recordCommit(_ duration: Duration) { catalogCommit.record(duration) }

    public func recordWatcherOverflow() { watcherOverflows.increment() }

    /// `reason`: `start-up`, `periodic`, `overflow`, `inbox back`.
    public func recordRescan(reason: String) {
        labelledCounter("utensild_inbox_rescans_total", "Full scans of the inbox, by reason, since start.", [("reason", reason)]).increment()
    }

    /// `hook`: `on_ingest` or `on_reject`; `end`: `exit 0`, `exit 1`, `timeout`, `dropped` …
    public func recordHook(_ hook: String, end: String) {
        labelledCounter("utensild_hook_runs_total", "Ingest hook runs by how they ended (dropped: not run, too many waiting).", [("hook", hook), ("end", end)]).increment()
    }

    /// The counter of this name with these labels besides `host` (made on first use).
    private func labelledCounter(_ name: String, _ help: String, _ labels: [(String, String)]) -> Prometheus.Counter {
        registry.makeCounter(descriptor: Self.named(name, help), labels: [("host", host)] + labels)
    }

    // MARK: - Scraping

    /// What the daemon reports at the moment of a scrape.
    public struct Sample: Sendable {
        public var queued: Int
        public var inFlight: Int
        /// nil when the catalog could not be counted (the gauge keeps its last value).
        public var utensils: Int?
        /// Since when the catalog has not answered; nil while it answers.
        public var catalogDownSince: Date?
        public var memoryHeldBytes: Int
        public var memoryBudgetBytes: Int
        public var memoryWaits: Int
        /// The PostgreSQL catalog's pool; nil for SQLite (no pool series then).
        public var catalogPool: CatalogPoolReading?

        public init(
            queued: Int, inFlight: Int, utensils: Int?, catalogDownSince: Date? = nil, memoryHeldBytes: Int,
            memoryBudgetBytes: Int, memoryWaits: Int, catalogPool: CatalogPoolReading? = nil
        ) {
            self.catalogPool = catalogPool
            self.queued = queued
            self.inFlight = inFlight
            self.utensils = utensils
            self.catalogDownSince = catalogDownSince
            self.memoryHeldBytes = memoryHeldBytes
            self.memoryBudgetBytes = memoryBudgetBytes
            self.memoryWaits = memoryWaits
        }
    }

    /// The Prometheus text exposition (format 0.0.4) of every series, the gauges set from `sample`.
    public func exposition(_ sample: Sample) -> String {
        queued.set(Int64(sample.queued))
        inFlight.set(Int64(sample.inFlight))
        if let count = sample.utensils { utensils.set(Int64(count)) }
        catalogUp.set(Int64(sample.catalogDownSince == nil ? 1 : 0))
        catalogDownSince.set(sample.catalogDownSince.map { $0.timeIntervalSince1970 } ?? 0)
        memoryHeld.set(Int64(sample.memoryHeldBytes))
        memoryBudget.set(Int64(sample.memoryBudgetBytes))
        let newWaits = countedMemoryWaits.withLock { counted in
            defer { counted = max(counted, sample.memoryWaits) }
            return max(0, sample.memoryWaits - counted)
        }
        if newWaits > 0 { memoryWaits.increment(by: Int64(newWaits)) }
        if let pool = sample.catalogPool { record(pool) }
        return registry.emitToString()
    }

    /// The catalog pool's series (made at the first scrape with a pool).
    private func record(_ pool: CatalogPoolReading) {
        let labels = [("host", host)]
        func gauge(_ name: String, _ help: String, _ value: Int) {
            registry.makeGauge(descriptor: Self.named(name, help), labels: labels).set(Int64(value))
        }
        func total(_ name: String, _ help: String, _ value: Double) {
            let counter = registry.makeCounter(descriptor: Self.named(name, help), labels: labels)
            let added = countedPool.withLock { counted in
                defer { counted[name] = max(counted[name] ?? 0, value) }
                return max(0, value - (counted[name] ?? 0))
            }
            if added > 0 { counter.increment(by: added) }
        }
        gauge("utensild_catalog_pool_connections_in_use", "Catalog calls holding a PostgreSQL connection now.", pool.inUse)
        gauge("utensild_catalog_pool_waiting", "Catalog calls waiting for a PostgreSQL connection now.", pool.waiting)
        gauge("utensild_catalog_pool_connections_limit", "The most PostgreSQL connections the pool opens.", pool.limit)
        total("utensild_catalog_pool_leases_total", "PostgreSQL connections handed to catalog calls since start.", Double(pool.leases))
        total(
            "utensild_catalog_pool_wait_seconds_total",
            "Seconds catalog calls waited for the PostgreSQL connection they got, since start.", pool.waitSeconds)
        total(
            "utensild_catalog_pool_lease_failures_total",
            "Catalog calls that got no PostgreSQL connection (the server unreachable, or none free within 10 s) since start.",
            Double(pool.leaseFailures))
        total(
            "utensild_catalog_pool_renewals_total",
            "Times the pool of connections was replaced because PostgreSQL answered again while the pool was backing off.",
            Double(pool.renewals))
    }

    /// The `Content-Type` of ``exposition(_:)``.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
