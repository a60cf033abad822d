import Hummingbird

/// Health checks for load balancers, Kubernetes-style probes and monitoring: `GET /healthz`
/// answers 200 while the daemon serves at all; `GET /readyz` answers 200 when the catalog and
/// the storage answer, else 503 with a JSON body saying which does not and why — both within
/// about 2 s whatever the catalog or the storage do.
struct HealthRoutes: Sendable {
    let backend: any GalleryBackend

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/healthz") { _, _ in
            try JSONReply.response(["status": "ok"])
        }
        router.get("/readyz") { _, _ in
            let readiness = await backend.readiness()
            var body = ["status": readiness.isReady ? "ready" : "not ready"]
            body["catalog"] = readiness.catalog ?? "ok"
            body["storage"] = readiness.storage ?? "ok"
            return try JSONReply.response(body, status: readiness.isReady ? .ok : .serviceUnavailable)
        }
    }
}
