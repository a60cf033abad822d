import Hummingbird
import UtensilControlProtocol

/// The HTML pages and their static script and style sheet.
struct PageRoutes: Sendable {
    let backend: any GalleryBackend
    let access: Access

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/") { request, _ in
            let query = try ListQuery(query: request.uri.query)
            let page = try await backend.answer(query.call, webUser: nil).payload()
            let categories = try await backend.answer(.categories, webUser: nil).payload()
            return HTML.response(GalleryPage(
                query: query, page: page, inbox: backend.inbox, categories: categories, user: access.user(request)).render())
        }
        router.get("/utensils/:id") { request, context in
            guard let segment = context.parameters.get("id"), let id = UtensilID(segment) else { throw WebProblem.notFound }
            let utensil = try await GalleryReads(backend: backend).utensil(id)
            return HTML.response(UtensilDetailPage(utensil: utensil, user: access.user(request)).render())
        }
        router.get("/trash") { request, _ in
            let utensils = try await backend.answer(.trash, webUser: nil).payload()
            return HTML.response(TrashPage(utensils: utensils, user: access.user(request)).render())
        }
        router.get("/static/gallery.js") { request, _ in
            StaticAssets.response(StaticAssets.script, contentType: "text/javascript; charset=utf-8", request: request)
        }
        router.get("/static/gallery.css") { request, _ in
            StaticAssets.response(StaticAssets.styleSheet, contentType: "text/css; charset=utf-8", request: request)
        }
    }
}
