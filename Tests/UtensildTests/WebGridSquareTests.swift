import Foundation
import Testing
import UtensilTestSupport

/// `/squares/{id}.jpeg` against the real daemon: the grid square served like a thumbnail (same
/// checks on the id, `ETag`, caching, ranges), offered in the gallery's `srcset`; a utensil
/// without its square yet gets its thumbnail there, never cached for a year.
@Suite("web grid squares against utensild", .serialized, .tags(.spawnsProcesses))
struct WebGridSquareTests {
    @Test func squaresStreamLikeThumbnailsAndTheGridOffersThem() throws {
        let (world, daemon, web, _) = try WebAPITests.populated()
        defer { world.remove() }
        let gallery = try web.get("/")
        for id in WebAPITests.ids(world) {
            let file = world.squares.appendingPathComponent("\(id).jpeg")
            let square = try web.get("/squares/\(id).jpeg")
            #expect(square.status == 200)
            #expect(square.headers["content-type"] == "image/jpeg")
            #expect(square.body == (try Data(contentsOf: file)))
            let etag = try #require(square.headers["etag"])
            #expect(try web.get("/squares/\(id).jpeg", headers: ["If-None-Match": etag]).status == 304)
            #expect(try web.get("/squares/\(id).jpeg?v=1").headers["cache-control"]?.contains("max-age=31536000") == true)
            let part = try web.get("/squares/\(id).jpeg", headers: ["Range": "bytes=2-9"])
            let bytes = try Data(contentsOf: file)
            #expect(part.status == 206 && part.body == bytes.subdata(in: 2..<10))
            #expect(try web.get("/squares/\(id).png").status == 404)
            #expect(gallery.text.contains(" 180w, /squares/\(id).jpeg?v="), "the card's srcset offers the square")
        }
        #expect(gallery.text.contains("sizes=\"(min-width: 40rem) 180px, calc(50vw - 1.375rem)\""))
        #expect(gallery.text.contains("loading=\"lazy\""))

        // A utensil without its square: the thumbnail in its place, revalidated each time.
        let id = try #require(WebAPITests.ids(world).first)
        try FileManager.default.removeItem(at: world.squares.appendingPathComponent("\(id).jpeg"))
        let standIn = try web.get("/squares/\(id).jpeg?v=1")
        #expect(standIn.status == 200)
        #expect(standIn.body == (try Data(contentsOf: world.thumbnails.appendingPathComponent("\(id).jpeg"))))
        #expect(standIn.headers["cache-control"]?.contains("no-cache") == true, "not kept for a year")
        for path in ["/squares/../utensils.sqlite", "/squares/00000000-0000-0000-0000-000000000000.jpeg", "/squares/%00.jpeg"] {
            let reply = try web.get(path)
            #expect(reply.status == 404 || reply.status == 400, "\(path) gave \(reply.status)")
        }
        _ = daemon
    }
}
