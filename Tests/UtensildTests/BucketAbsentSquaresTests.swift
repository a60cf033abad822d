import Foundation
import Testing
import UtensilTestSupport

/// A grid of utensils without their grid square objects (an upgraded site's), served by the real
/// daemon from a bucket (a real SeaweedFS): each missing square costs the bucket one GET, not
/// one at each view, as SeaweedFS's own request counter says; a square `rethumb --missing`
/// makes on this host is served at its next request.
@Suite("Missing grid squares in a bucket", .serialized, .tags(.spawnsProcesses))
struct BucketAbsentSquaresTests {
    @Test func aMissingSquareIsAskedOfTheBucketOnceAndServedOnceMadeHere() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let root = world.root.path
        let photos = try TestImages.make((0..<4).map { TestImages.jpeg(root + "/photo\($0)", width: 640, height: 480, seed: 410 + $0) })
        for (index, photo) in photos.enumerated() { try world.drop("Ladle \(index).jpg", photo) }
        let web = world.root.appendingPathComponent("web.sock").path, control = world.root.appendingPathComponent("control.sock").path
        let daemon = try RunningDaemon(world: world, extra: site.flags + ["--web-listen", "unix:" + web])
        let ids = try daemon.waitForCatalog("the utensils") { $0.count == photos.count }.map(\.id.uuidString)
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: web) }
        let gallery = WebClient(socketPath: web)
        let client = try server.client()
        var thumbnails: [String: Data] = [:]
        for id in ids {
            thumbnails[id] = Data(try await client.get("site/thumbnails/\(id).jpeg"))
            // An upgraded site: no square object, and nothing read it before.
            try await client.delete("site/squares/\(id).jpeg")
        }

        /// The grid's squares, each answered by its thumbnail.
        func view() throws {
            for id in ids {
                let reply = try gallery.get("/squares/\(id).jpeg?v=1")
                #expect(reply.status == 200 && reply.body == thumbnails[id], "\(id): \(reply.status)")
            }
        }
        /// Waits until the server has counted `count` GETs of what is not there (it counts an
        /// answer just after sending it).
        func waitForMissingGETs(_ count: Int) throws {
            try daemon.waitUntil("SeaweedFS to count \(count) GETs of missing objects") { (try? server.requests("GET", code: 404)) == count }
        }

        let missingBefore = try server.requests("GET", code: 404)
        try view()
        try waitForMissingGETs(missingBefore + ids.count)
        let getsAfterFirstView = try server.requests("GET")
        // Again, within the cache's time to live (10 s; a few requests on this machine).
        try view()
        try view()
        // A GET of a missing key of our own: once the server counted it, it counted the views'.
        await #expect(throws: (any Error).self) { _ = try await client.get("site/squares/\(UUID().uuidString).jpeg") }
        try waitForMissingGETs(missingBefore + ids.count + 1)
        #expect(try server.requests("GET") == getsAfterFirstView + 1, "the grid viewed again asked the bucket nothing")

        // `rethumb --missing` makes the squares here: each is served at its next request.
        let rethumb = try Utensilctl.run(["rethumb", "--missing", "--json"], socket: control)
        #expect(rethumb.status == 0, "\(rethumb.errors)")
        #expect(rethumb.json?["queued"] as? Int == ids.count, "\(rethumb.output)")
        try daemon.waitUntil("the rethumb run to finish") {
            guard let status = try? Utensilctl.run(["status", "--json"], socket: control).json,
                  let run = status["rethumb"] as? [String: Any]
            else { return false }
            return run["finishedAt"] != nil && run["total"] as? Int == ids.count
        }
        for id in ids {
            let square = Data(try await client.get("site/squares/\(id).jpeg"))
            let reply = try gallery.get("/squares/\(id).jpeg?v=1")
            #expect(reply.status == 200 && reply.body == square && square != thumbnails[id], "\(id): \(reply.status)")
        }
        #expect(try daemon.terminate() == 0)
    }
}
