import CoreMetrics
import Testing
@testable import UtensilMetrics

/// The exposition: every family with its HELP and TYPE, the host label on every series, the
/// memory waits counted once however often they are sampled, swift-metrics' API landing in
/// the same registry.
@Suite struct DaemonMetricsTests {
    static func sample(waits: Int) -> DaemonMetrics.Sample {
        .init(queued: 2, inFlight: 1, utensils: 7, memoryHeldBytes: 1024, memoryBudgetBytes: 4096, memoryWaits: waits)
    }

    @Test func countsGaugesAndTheFactoryShareOneRegistry() {
        let metrics = DaemonMetrics(host: "kitchen-1")
        metrics.recordIngested(after: .milliseconds(30))
        metrics.recordRejected(reason: "corrupt-image", after: .milliseconds(4))
        metrics.recordRejected(reason: "corrupt-image", after: .milliseconds(4))
        metrics.recordRescan(reason: "periodic")
        metrics.recordHook("on_ingest", end: "exit 1")
        CoreMetrics.Counter(label: "utensild_web_requests_total", dimensions: [("route", "/"), ("status", "200")],
                            factory: metrics.factory).increment()
        _ = metrics.exposition(Self.sample(waits: 3))
        let text = metrics.exposition(Self.sample(waits: 5))
        #expect(text.contains(#"utensild_drops_ingested_total{host="kitchen-1"} 1"#))
        #expect(text.contains(#"utensild_drops_rejected_total{host="kitchen-1",reason="corrupt-image"} 2"#))
        #expect(text.contains(#"utensild_ingest_duration_seconds_count{host="kitchen-1"} 3"#))
        #expect(text.contains(#"utensild_queue_depth{host="kitchen-1"} 2"#))
        #expect(text.contains(#"utensild_catalog_utensils{host="kitchen-1"} 7"#))
        #expect(text.contains(#"utensild_decoding_memory_waits_total{host="kitchen-1"} 5"#))
        #expect(text.contains(#"utensild_hook_runs_total{host="kitchen-1",hook="on_ingest",end="exit 1"} 1"#))
        #expect(text.contains(#"utensild_web_requests_total{route="/",status="200",host="kitchen-1"} 1"#), "\(text)")
        #expect(text.contains("# TYPE utensild_decoding_memory_waits_total counter"))
        #expect(text.contains("# HELP utensild_catalog_utensils "))
    }

    /// Prometheus wants a HELP for every family: the ones recorded through swift-metrics' API
    /// (the gallery's requests) get theirs from the factory, as the daemon's own do.
    @Test func everyFamilyHasHelpAndType() {
        let metrics = DaemonMetrics(host: "kitchen-1")
        metrics.recordIngested(after: .milliseconds(30))
        metrics.recordRejected(reason: "corrupt-image", after: .milliseconds(4))
        metrics.recordRescan(reason: "start-up")
        metrics.recordHook("on_reject", end: "exit 0")
        CoreMetrics.Counter(label: "utensild_web_requests_total", dimensions: [("route", "/"), ("method", "GET"), ("status", "200")],
                            factory: metrics.factory).increment()
        CoreMetrics.Timer(label: "utensild_web_request_duration_seconds", dimensions: [("route", "/")], factory: metrics.factory)
            .recordMilliseconds(12)
        let text = metrics.exposition(Self.sample(waits: 0))
        let lines = text.split(separator: "\n")
        let typed = Set(lines.filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        let helped = Set(lines.filter { $0.hasPrefix("# HELP ") }.map { String($0.split(separator: " ")[2]) })
        #expect(typed.count == 20, "\(typed.sorted())")
        #expect(helped == typed, "\(text)")
        for (name, help) in DaemonMetrics.factoryHelpTexts {
            #expect(text.contains("# HELP \(name) \(help)\n"), "\(name)")
        }
        #expect(text.contains(#"utensild_web_request_duration_seconds_count{route="/",host="kitchen-1"} 1"#), "\(text)")
    }
}
