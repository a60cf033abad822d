import Foundation
import Testing
import UtensilTestSupport

/// `GET /squares/{id}.jpeg` against the real daemon whose renditions live in a bucket (a real
/// SeaweedFS): a utensil of an upgraded site, without its grid square object, gets its thumbnail
/// there (never kept for a year, revalidated by its `ETag`, ranges its own) until the square is
/// put; objects planted under almost-right keys are never served; a range past the end is 416.
@Suite("Grid squares from a bucket", .serialized, .tags(.spawnsProcesses))
struct BucketGridSquareTests {
    @Test func aSquareMissingFromTheBucketIsStoodInForAndNothingElseIsServed() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/spoon", width: 800, height: 600, seed: 75)])[0]
        try world.drop("Spoon.jpg", photo)
        let socket = world.root.appendingPathComponent("web.sock").path
        let daemon = try RunningDaemon(
            world: world, extra: site.flags + ["--web-listen", "unix:" + socket])
        let row = try #require(try daemon.waitForCatalog("the utensil") { $0.count == 1 }.first)
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: socket) }
        let web = WebClient(socketPath: socket)
        let id = row.id.uuidString
        let client = try server.client()
        let thumbnail = Data(try await client.get("site/thumbnails/\(id).jpeg"))

        // An upgraded site: the square object is not there (nothing read it before, so nothing keeps it).
        try await client.delete("site/squares/\(id).jpeg")
        // Keys that are almost the square's: never served in its place.
        for key in ["site/squares/\(id.lowercased()).jpeg", "site/squares/\(id).jpeg.bak", "site/squares/\(id).JPEG", "site/squares/\(id)"] {
            try await client.put(key, Array("planted".utf8))
        }
        let standIn = try web.get("/squares/\(id).jpeg?v=1")
        #expect(standIn.status == 200 && standIn.body == thumbnail, "the thumbnail stands in: \(standIn.status)")
        #expect(standIn.headers["cache-control"]?.contains("no-cache") == true, "never kept for a year")
        let etag = try #require(standIn.headers["etag"])
        #expect(try web.get("/squares/\(id).jpeg", headers: ["If-None-Match": etag]).status == 304)
        #expect(try web.get("/squares/\(id).jpeg", headers: ["If-None-Match": "W/\(etag)"]).status == 304)
        let part = try web.get("/squares/\(id).jpeg", headers: ["Range": "bytes=2-9"])
        #expect(part.status == 206 && part.body == thumbnail.subdata(in: 2..<10))
        let past = try web.get("/squares/\(id).jpeg", headers: ["Range": "bytes=\(thumbnail.count)-"])
        #expect(past.status == 416 && past.headers["content-range"] == "bytes */\(thumbnail.count)")
        for path in ["/squares/\(id.lowercased()).jpeg", "/squares/\(id).jpeg.bak", "/squares/\(id).JPEG", "/squares/\(id)"] {
            let reply = try web.get(path)
            #expect(reply.body != Data("planted".utf8), "\(path) served a planted object")
            #expect(reply.status == 404 || (reply.status == 200 && reply.body == thumbnail), "\(path): \(reply.status)")
        }

        // The square made (`rethumb --missing`, on this host): the browser's revalidation gets it
        // at once, though the grid has just found it missing (which the cache remembers a while).
        let control = world.root.appendingPathComponent("control.sock").path
        let rethumb = try Utensilctl.run(["rethumb", "--missing", "--json"], socket: control)
        #expect(rethumb.status == 0 && rethumb.json?["queued"] as? Int == 1, "\(rethumb.output)\(rethumb.errors)")
        try daemon.waitUntil("the rethumb run to finish") {
            guard let status = try? Utensilctl.run(["status", "--json"], socket: control).json,
                  let run = status["rethumb"] as? [String: Any]
            else { return false }
            return run["finishedAt"] != nil && run["total"] as? Int == 1
        }
        let square = Data(try await client.get("site/squares/\(id).jpeg"))
        let made = try web.get("/squares/\(id).jpeg", headers: ["If-None-Match": etag])
        #expect(made.status == 200 && made.body == square)
        #expect(try web.get("/squares/\(id).jpeg?v=2").headers["cache-control"]?.contains("max-age=31536000") == true)

        // Neither square nor thumbnail: not found, not an error.
        try await client.delete("site/squares/\(id).jpeg")
        try await client.delete("site/thumbnails/\(id).jpeg")
        #expect(try web.get("/squares/\(UUID().uuidString).jpeg").status == 404)
        #expect(try web.get("/healthz").status == 200)
        #expect(try daemon.terminate() == 0)
    }
}
