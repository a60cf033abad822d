import Hummingbird

/// What makes the gallery installable as an app: its web manifest (with a `share_target`
/// that posts a phone's shared photos to `POST /share`, ``ChangeRoutes``), its icons, and the
/// service worker that keeps the shell and the thumbnails for opening it from the home screen.
struct AppRoutes: Sendable {
    func register(on router: Router<GalleryRequestContext>) {
        router.get("/manifest.webmanifest") { request, _ in
            StaticAssets.response(
                Self.manifest, contentType: "application/manifest+json", request: request, etag: StaticAssets.fingerprint(Self.manifest))
        }
        router.get("/sw.js") { request, _ in
            var response = StaticAssets.response(
                ServiceWorker.script, contentType: "text/javascript; charset=utf-8", request: request,
                etag: StaticAssets.fingerprint(ServiceWorker.script))
            // A new version of the worker is looked for at every visit, never from a cache.
            response.headers[.cacheControl] = "no-cache"
            return response
        }
        for size in AppIcon.sizes {
            router.get("/static/icon-\(size).png") { request, _ in
                var headers = HTTPFields()
                headers[.contentType] = "image/png"
                headers[.cacheControl] = "public, max-age=86400"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: AppIcon.png[size] ?? [])))
            }
        }
    }

    /// The web manifest: standalone, the gallery's colours and icons, and the share target
    /// (photos only, as multipart form data, the field `files` the upload route reads).
    static let manifest = """
        {
          "name": "Kitchen Utensils",
          "short_name": "Utensils",
          "description": "The kitchen's utensils: photos, names and categories.",
          "id": "/",
          "start_url": "/",
          "scope": "/",
          "display": "standalone",
          "background_color": "#ffffff",
          "theme_color": "#1e6f43",
          "icons": [
            {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"}
          ],
          "share_target": {
            "action": "/share",
            "method": "POST",
            "enctype": "multipart/form-data",
            "params": {"files": [{"name": "files", "accept": ["image/*", ".jpg", ".jpeg", ".png", ".heic", ".heif", ".webp", ".avif"]}]}
          }
        }
        """
}
