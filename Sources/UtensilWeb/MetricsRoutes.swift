import CoreMetrics
import Hummingbird

/// `GET /metrics`: the Prometheus text format. Open like every read of the gallery (whoever
/// reaches the listener, no session): it holds counts and timings, no names or paths.
struct MetricsRoutes: Sendable {
    let metrics: GalleryMetrics

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = metrics.contentType
            headers[.cacheControl] = "no-store"
            let text = await metrics.exposition()
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }
}

/// Counts every request by route (the matched pattern, such as `/utensils/{id}`, so that the
/// series stay few; Hummingbird's `NotFound` for a 404 no route took), method and status, and times it to
/// its response head: `utensild_web_requests_total`, `utensild_web_request_duration_seconds`.
struct RequestMetrics: RouterMiddleware {
    typealias Context = GalleryRequestContext
    let factory: any MetricsFactory

    func handle(
        _ request: Request, context: GalleryRequestContext, next: (Request, GalleryRequestContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), since: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: Int(status), since: started)
            throw error
        }
    }

    private func record(_ request: Request, _ context: GalleryRequestContext, status: Int, since started: ContinuousClock.Instant) {
        let route = context.endpointPath ?? "NotFound"
        CoreMetrics.Counter(
            label: "utensild_web_requests_total",
            dimensions: [("route", route), ("method", request.method.rawValue), ("status", String(status))],
            factory: factory
        ).increment()
        CoreMetrics.Timer(label: "utensild_web_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordInterval(since: started)
    }
}

extension CoreMetrics.Timer {
    /// Records the time from `start` to now.
    fileprivate func recordInterval(since start: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
