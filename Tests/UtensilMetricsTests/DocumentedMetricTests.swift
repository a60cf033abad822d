import CoreMetrics
import Foundation
import Testing
import UtensilCatalogModel
@testable import UtensilMetrics
import UtensilTestSupport

/// Every metric family `/metrics` can serve is named in the README or a guide, and every
/// `utensild_…` metric name they mention is one it serves.
@Suite struct DocumentedMetricTests {
    /// `utensild_…` names in the documents that are not metrics: a PostgreSQL table, its
    /// NOTIFY channel, the gallery's cookie.
    static let notMetrics: Set<String> = ["utensild_migrations", "utensild_events", "utensild_session"]

    /// The families of an exposition where every metric has been recorded once.
    static let served: Set<String> = {
        let metrics = DaemonMetrics(host: "kitchen-1")
        metrics.recordIngested(after: .milliseconds(30))
        metrics.recordRejected(reason: "corrupt-image", after: .milliseconds(4))
        metrics.recordCatalogError()
        metrics.recordEventSeq(1)
        metrics.recordRemoteEventDelay(0.5)
        metrics.recordCommit(.milliseconds(2))
        metrics.recordWatcherOverflow()
        metrics.recordRescan(reason: "periodic")
        metrics.recordHook("on_ingest", end: "exit 0")
        for label in DaemonMetrics.factoryHelpTexts.keys.sorted() {
            if label.hasSuffix("_seconds") {
                CoreMetrics.Timer(label: label, dimensions: [("route", "/")], factory: metrics.factory).recordMilliseconds(1)
            } else {
                CoreMetrics.Counter(label: label, dimensions: [("route", "/")], factory: metrics.factory).increment()
            }
        }
        let pool = CatalogPoolReading(inUse: 1, waiting: 0, limit: 4, leases: 3, waitSeconds: 0.1, leaseFailures: 0, renewals: 0)
        let sample = DaemonMetrics.Sample(
            queued: 1, inFlight: 1, utensils: 2, catalogDownSince: Date(), memoryHeldBytes: 1, memoryBudgetBytes: 2,
            memoryWaits: 0, catalogPool: pool)
        let text = metrics.exposition(sample)
        return Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
    }()

    /// The `utensild_…` names a document mentions, a histogram's `_bucket`/`_count`/`_sum` cut off.
    static func mentioned(in document: String) -> Set<String> {
        let text = RepositoryDocuments.text(document)
        let expression = try! NSRegularExpression(pattern: #"\butensild_[a-z_]*[a-z]"#)
        return Set(expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            let name = String(text[Range(match.range, in: text)!])
            return name.replacing(/_(bucket|count|sum)$/, with: "")
        })
    }

    @Test func everyServedMetricIsDocumented() {
        #expect(Self.served.count >= 25, "\(Self.served.sorted())")
        let documented = RepositoryDocuments.guides.reduce(into: Set<String>()) { $0.formUnion(Self.mentioned(in: $1)) }
        for name in Self.served.sorted() {
            #expect(documented.contains(name), "/metrics serves \(name), which no document names: add it to the metrics list in docs/OPERATIONS.md")
        }
    }

    @Test func everyDocumentedMetricIsServed() {
        for document in RepositoryDocuments.guides {
            #expect(!RepositoryDocuments.text(document).isEmpty, "\(document) not found beside Package.swift")
            for name in Self.mentioned(in: document).subtracting(Self.notMetrics).sorted() {
                #expect(Self.served.contains(name), "\(document) names the metric \(name), which /metrics does not serve: correct it")
            }
        }
    }
}
