import CoreMetrics
import Prometheus

/// The swift-metrics factory of ``DaemonMetrics/factory``: what it makes lands in the daemon's
/// registry with the `host` label added and a `# HELP` line taken from ``helpTexts``.
///
/// swift-prometheus' own `PrometheusMetricsFactory` registers every metric without help text, and
/// its registry refuses (traps) a second registration of a name with another help, so the text
/// must come with the first registration: here, by name.
struct HelpfulMetricsFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let host: String
    /// The help text of each name recorded through swift-metrics' API.
    let helpTexts: [String: String]
    let durationBuckets: [Duration]
    let valueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]

    /// The name's descriptor with its help text. A name missing from ``helpTexts`` is a
    /// programming error (a debug build stops on it); a release build names the metric as help.
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        let help = helpTexts[label]
        assert(help != nil, "\(label) has no help text: add it to DaemonMetrics.factoryHelpTexts")
        return MetricNameDescriptor(metricName: label, unitName: "", helpText: help ?? label)
    }

    private func labels(_ dimensions: [(String, String)]) -> [(String, String)] {
        dimensions + [("host", host)]
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: labels(dimensions))
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: labels(dimensions))
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        aggregate
            ? registry.makeValueHistogram(descriptor: descriptor(label), labels: labels(dimensions), buckets: valueBuckets)
            : registry.makeGauge(descriptor: descriptor(label), labels: labels(dimensions))
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: labels(dimensions))
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: descriptor(label), labels: labels(dimensions), buckets: durationBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
