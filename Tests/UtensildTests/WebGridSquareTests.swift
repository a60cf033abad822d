import Foundation
import Glibc
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

    /// What a square's name may hold in `squares/` that is no grid square (a link out of the
    /// state folder, a FIFO, a folder) gets the thumbnail's stand-in, and request lines that try
    /// to climb out of `/squares/` get nothing: no byte of a file outside, none of the catalog.
    @Test func plantedSquaresAndClimbingRequestsServeNothingElse() throws {
        let (world, daemon, web, _) = try WebAPITests.populated()
        defer { world.remove() }
        let secret = Data("outside the state folder".utf8)
        let canary = try OutsideCanary(in: world.root, files: ["secret.jpeg": secret])
        let id = try #require(WebAPITests.ids(world).first)
        let square = world.squares.appendingPathComponent("\(id).jpeg").path
        let thumbnail = try Data(contentsOf: world.thumbnails.appendingPathComponent("\(id).jpeg"))
        let plants: [(String, (String) -> Int32)] = [
            ("a link out of the state folder", { symlink(canary.folder.appendingPathComponent("secret.jpeg").path, $0) }),
            ("a FIFO", { mkfifo($0, 0o600) }),
            ("a folder", { mkdir($0, 0o700) }),
        ]
        for (what, plant) in plants {
            if unlink(square) != 0 { rmdir(square) }
            #expect(plant(square) == 0, "\(what): \(String(cString: strerror(errno)))")
            for headers in [[:], ["Range": "bytes=0-5"], ["Range": "bytes=-9999999999"]] {
                let reply = try web.get("/squares/\(id).jpeg?v=1", headers: headers)
                #expect(reply.status == 200 || reply.status == 206, "\(what) \(headers): \(reply.status)")
                #expect(thumbnail.starts(with: reply.body) && !reply.body.isEmpty, "\(what) \(headers): the thumbnail stands in")
                #expect(reply.headers["cache-control"]?.contains("no-cache") == true, "\(what)")
            }
        }
        let outside = canary.folder.lastPathComponent
        let lines = [
            "/squares/../../\(outside)/secret.jpeg", "/squares/..%2f..%2f\(outside)%2fsecret.jpeg",
            "/squares/%2e%2e/%2e%2e/\(outside)/secret.jpeg", "/squares/%2e%2e%2futensils.sqlite", "/squares/../utensils.sqlite",
            "/squares/\(id).jpeg/../../utensils.sqlite", "http://localhost/squares/../../\(outside)/secret.jpeg",
            "/squares/\(id).jpeg%00/../../../\(outside)/secret.jpeg", "/squares//..//..//\(outside)//secret.jpeg",
        ]
        for line in lines {
            let request = Data("GET \(line) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
            guard let reply = try? web.exchange(request) else { continue }  // Closed without an answer: nothing served.
            #expect([400, 404].contains(reply.status), "\(line): \(reply.status)")
            #expect(reply.body.range(of: secret) == nil && reply.body.range(of: Data("SQLite format".utf8)) == nil, "\(line)")
        }
        #expect(try web.get("/healthz").status == 200, "the daemon still serves")
        canary.verifyUntouched()
        #expect(try daemon.terminate() == 0)
    }
}
