import Hummingbird
import UtensilControlProtocol

/// Health checks for load balancers, Kubernetes-style probes and monitoring: `GET /healthz`
/// answers 200 while the daemon serves at all; `GET /readyz` answers 200 when the catalog and
/// the storage answer, else 503 with a JSON body saying which does not and why — both within
/// about 2 s whatever the catalog or the storage do.
struct HealthRoutes: Sendable {
    let backend: any GalleryBackend

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/healthz") { _, _ in
            Self.json(.ok, ["status": "ok"])
        }
        router.get("/readyz") { _, _ in
            let readiness = await backend.readiness()
            var body = ["status": readiness.isReady ? "ready" : "not ready"]
            body["catalog"] = readiness.catalog ?? "ok"
            body["storage"] = readiness.storage ?? "ok"
            return Self.json(readiness.isReady ? .ok : .serviceUnavailable, body)
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ body: [String: String]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let bytes = (try? LineFraming.encode(body)) ?? .init()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
