import Foundation
import Testing
import UtensilTestSupport

/// `/previews/{id}.jpeg` against the real daemon: served like a thumbnail (same checks on the
/// id, `ETag`, caching), named by the API's `preview` field, shown on the utensil's page.
@Suite("web previews against utensild", .serialized, .tags(.spawnsProcesses))
struct WebPreviewTests {
    @Test func previewsStreamLikeThumbnailsAndTheUtensilsPageShowsOne() throws {
        let (world, daemon, web, _) = try WebAPITests.populated()
        defer { world.remove() }
        for id in WebAPITests.ids(world) {
            let file = world.previews.appendingPathComponent("\(id).jpeg")
            let preview = try web.get("/previews/\(id).jpeg")
            #expect(preview.status == 200)
            #expect(preview.headers["content-type"] == "image/jpeg")
            #expect(preview.body == (try Data(contentsOf: file)))
            let etag = try #require(preview.headers["etag"])
            #expect(preview.headers["cache-control"]?.contains("no-cache") == true)
            #expect(try web.get("/previews/\(id).jpeg", headers: ["If-None-Match": etag]).status == 304)
            #expect(try web.get("/previews/\(id).jpeg?v=1").headers["cache-control"]?.contains("max-age=31536000") == true)
            #expect(try web.get("/previews/\(id).png").status == 404)

            let info = try WebAPITests.json(try web.get("/api/v1/utensils/" + id))
            #expect(info["preview"] as? String == file.path)
            let name = try #require(info["name"] as? String)
            let fileExtension = try #require(info["extension"] as? String)

            let page = try web.get("/utensils/\(id)")
            #expect(page.status == 200)
            #expect(page.text.contains("<img class=\"preview\" src=\"/previews/\(id).jpeg?v="), "\(page.text)")
            #expect(page.text.contains("alt=\"\(name)\""), "the preview's alt text is the name")
            #expect(page.text.contains("href=\"/originals/\(id).\(fileExtension)?v="), "a link to the original")
            #expect(page.text.contains(" download>Download the original"))
            #expect(!page.text.contains("<img src=\"/originals/"), "the page no longer embeds the original")
        }
        for path in [
            "/previews/../utensils.sqlite", "/previews/..%2Futensils.sqlite", "/previews/utensils.sqlite",
            "/previews/00000000-0000-0000-0000-000000000000.jpeg", "/previews/%00.jpeg",
        ] {
            let reply = try web.get(path)
            #expect(reply.status == 404 || reply.status == 400, "\(path) gave \(reply.status)")
            #expect(!reply.text.contains("SQLite format"), "\(path) leaked the catalog")
        }
        let missing = try web.get("/previews/00000000-0000-0000-0000-000000000000.jpeg")
        #expect(missing.headers["content-type"]?.hasPrefix("application/json") == true, "a file route's error is JSON")
        _ = daemon
    }
}
