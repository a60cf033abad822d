import CoreMetrics

/// The daemon's metrics as the gallery sees them: where its own request counts go (through
/// swift-metrics' API, so this target never knows the backend), and the text `GET /metrics`
/// serves.
public struct GalleryMetrics: Sendable {
    /// Makes the gallery's request counters and timers (no global `MetricsSystem`).
    public let factory: any MetricsFactory
    /// The Prometheus text exposition of every metric of the daemon.
    public let exposition: @Sendable () async -> String
    /// Its `Content-Type`.
    public let contentType: String

    public init(factory: any MetricsFactory, contentType: String, exposition: @escaping @Sendable () async -> String) {
        self.factory = factory
        self.contentType = contentType
        self.exposition = exposition
    }
}
