import Foundation
import Hummingbird
import UtensilControlProtocol

/// The HTML pages and their static script and style sheet.
struct PageRoutes: Sendable {
    let backend: any GalleryBackend
    let access: Access

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/") { request, _ in
            let query = try ListQuery(query: request.uri.query)
            let user = access.user(request)
            if query.favorites && user == nil { throw Access.signInForFavorites }
            let page = try await backend.answer(query.call, webUser: user).payload()
            let categories = try await backend.answer(.categories, webUser: nil).payload()
            var gallery = GalleryPage(query: query, page: page, inbox: backend.inbox, categories: categories, user: user)
            gallery.total = await ListTotal.find(query, user: user, backend: backend)
            // Back from `POST /share`: how many shared photos went into the inbox.
            if user != nil, let items = QueryItems(request.uri.query), let sent = items["shared"].flatMap(Int.init) {
                gallery.shared = (sent, items["refused"].flatMap(Int.init) ?? 0)
            }
            // Just deleted (`?deleted=ID`, where a delete redirects): its Undo, while it is in the trash.
            if user != nil, let deleted = QueryItems(request.uri.query)?["deleted"], let id = UtensilID(deleted),
               case .success(let trash) = await backend.answer(.trash, webUser: nil)
            {
                gallery.undo = trash.first { $0.id.uppercased() == id.text.uppercased() }
            }
            return HTML.response(gallery.render())
        }
        router.get("/utensils/:id") { request, context in
            guard let segment = context.parameters.get("id"), let id = UtensilID(segment) else { throw WebProblem.notFound }
            let user = access.user(request)
            let utensil = try await GalleryReads(backend: backend).utensil(id, for: user)
            // The list it was opened from; a query that is not one (or a visitor's favorites)
            // leaves the page without neighbours rather than refusing it.
            var page = UtensilDetailPage(utensil: utensil, user: user)
            // Asked of the store, so a bucket's preview counts as a folder's does.
            var previewBytes: Int?
            if let uuid = UUID(uuidString: id.text),
               let preview = try? await backend.renditionInfo(.preview, of: uuid, fileExtension: utensil.fileExtension)
            {
                previewBytes = Int(preview.size)
            }
            page.imageIsOriginal = UtensilDetailPage.showsOriginal(utensil, previewBytes: previewBytes)
            if user != nil, case .success(let categories) = await backend.answer(.categories, webUser: nil) {
                page.categories = categories
            }
            if let list = try? ListQuery(query: request.uri.query), !list.favorites || user != nil {
                page.list = list
                page.neighbours = await ListNeighbours.find(utensil.id, in: list, user: user, backend: backend)
            }
            return HTML.response(page.render())
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
