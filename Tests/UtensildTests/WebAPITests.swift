import Foundation
import Testing
import UtensilTestSupport

/// The web gallery's JSON API and file routes against the real daemon, listening on a Unix
/// socket (`--web-listen unix:PATH`), with hostile input.
@Suite("web API against utensild", .serialized, .tags(.spawnsProcesses))
struct WebAPITests {
    /// A daemon with two utensils and one rejection, its gallery on `web.sock`.
    static func populated() throws -> (TestWorld, RunningDaemon, WebClient, [Data]) {
        let socket = { (world: TestWorld) in world.root.appendingPathComponent("web.sock").path }
        let (world, daemon, dropped) = try UtensilctlEndToEndTests.populated { ["--web-listen", "unix:" + socket($0)] }
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: socket(world)) }
        return (world, daemon, WebClient(socketPath: socket(world)), dropped)
    }

    static func json(_ reply: WebClient.Reply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any], "not a JSON object: \(reply.text)")
    }

    static func ids(_ world: TestWorld) -> [String] {
        world.files(in: world.thumbnails).map { String($0.prefix(36)) }.sorted()
    }

    @Test func theListIsTheJSONOfUtensilctlListJSON() throws {
        let (world, daemon, web, inputs) = try Self.populated()
        defer { world.remove() }
        let reply = try web.get("/api/v1/utensils")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        let ctl = try UtensilctlEndToEndTests.ctl(["list", "--json"], socket: world.root.appendingPathComponent("control.sock").path)
        #expect(ctl.status == 0)
        #expect(reply.text.trimmingCharacters(in: .newlines) == ctl.output.trimmingCharacters(in: .newlines))
        let names = (try Self.json(reply)["utensils"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(Set(names ?? []) == ["Crème brûlée torch", "包丁 🔪"])

        let searched = try Self.json(try web.get("/api/v1/utensils?search=CREME+brulee"))
        #expect((searched["utensils"] as? [[String: Any]])?.count == 1)
        let byName = try Self.json(try web.get("/api/v1/utensils?sort=name&limit=1"))
        #expect((byName["utensils"] as? [[String: Any]])?.first?["name"] as? String == "Crème brûlée torch")
        let cursor = try #require(byName["next"] as? String)
        let second = try Self.json(try web.get("/api/v1/utensils?sort=name&limit=1&after=" + cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!))
        #expect((second["utensils"] as? [[String: Any]])?.first?["name"] as? String == "包丁 🔪")
        #expect(second["next"] is NSNull)

        for id in Self.ids(world) {
            let one = try web.get("/api/v1/utensils/" + id)
            #expect(one.status == 200)
            #expect(try Self.json(one)["id"] as? String == id)
            #expect(try web.get("/api/v1/utensils/" + id.lowercased()).status == 200)
        }
        let status = try Self.json(try web.get("/api/v1/status"))
        #expect(status["utensils"] as? Int == 2)
        #expect(status["version"] is String)
        try InvariantChecker(world: world).verify(inputs: inputs)
        _ = daemon
    }

    @Test func categoriesAreListedAndNarrowTheGalleryAndTheAPI() throws {
        let (world, daemon, web, _) = try Self.populated()
        defer { world.remove() }
        let images = try TestImages.make([TestImages.jpeg(world.root.path + "/k", seed: 11)])
        try FileManager.default.createDirectory(at: world.inbox.appendingPathComponent("Knives"), withIntermediateDirectories: true)
        try world.drop("Knives/Paring knife.jpg", images[0])
        try daemon.waitForUtensils(3)
        let categories = try #require(try JSONSerialization.jsonObject(with: web.get("/api/v1/categories").body) as? [[String: Any]])
        #expect(categories.count == 1)
        #expect(categories.first?["name"] as? String == "Knives")
        #expect(categories.first?["count"] as? Int == 1)
        let ctl = try UtensilctlEndToEndTests.ctl(["categories", "--json"], socket: world.root.appendingPathComponent("control.sock").path)
        #expect(try web.get("/api/v1/categories").text.trimmingCharacters(in: .newlines) == ctl.output.trimmingCharacters(in: .newlines))
        let knives = try Self.json(try web.get("/api/v1/utensils?category=knives"))
        #expect((knives["utensils"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Paring knife"])
        let page = try web.get("/?category=Knives").text
        #expect(page.contains("Paring knife"))
        #expect(!page.contains("Crème brûlée torch"))
        #expect(try web.get("/").text.contains("data-category=\"Knives\""))
        let id = try #require((knives["utensils"] as? [[String: Any]])?.first?["id"] as? String)
        let detail = try web.get("/utensils/\(id)").text
        #expect(detail.contains(">Knives</a>"))
        #expect(detail.contains("Added by"))
        #expect(try web.get("/api/v1/utensils?category=" + String(repeating: "k", count: 500)).status == 400)
    }

    @Test func hostileQueriesAreRefusedWithAReason() throws {
        let (world, daemon, web, inputs) = try Self.populated()
        defer { world.remove() }
        let refused = [
            "/api/v1/utensils?search=" + String(repeating: "a", count: 10_000),
            "/api/v1/utensils?limit=0", "/api/v1/utensils?limit=-1", "/api/v1/utensils?limit=abc",
            "/api/v1/utensils?limit=99999999999999999999999", "/api/v1/utensils?sort=bogus",
            "/api/v1/utensils?after=not-a-cursor", "/api/v1/utensils?after=" + String(repeating: "x", count: 5000),
            "/api/v1/utensils?search=%ff%fe", "/api/v1/utensils?search=%",
            // Cursors that decode but were never handed out: three NUL bytes, a name and no utensil id.
            "/api/v1/utensils?after=AAAA", "/api/v1/utensils?after=" + Data("Spoon\u{0}../../x".utf8).base64EncodedString(),
            // One character of 2,001 code points (an "e" and 2,000 combining accents): short in
            // characters, not in code points or bytes.
            "/api/v1/utensils?search=e" + String(repeating: "%CC%81", count: 2_000),
            // 101 characters of two code points each: within 200 characters, not within the 200
            // code points the OpenAPI document's maxLength allows (schemathesis found this).
            "/api/v1/utensils?search=" + String(repeating: "e%CC%81", count: 101),
            // 201 code points of which the last is a space that trimming would remove.
            "/api/v1/utensils?search=" + String(repeating: "a", count: 200) + "+",
        ]
        for path in refused {
            let reply = try web.get(path)
            #expect(reply.status == 400, "\(path.prefix(80)) gave \(reply.status)")
            let error = try Self.json(reply)["error"] as? [String: Any]
            #expect((error?["message"] as? String)?.isEmpty == false, "\(path.prefix(80)): \(reply.text.prefix(200))")
        }
        // The longest search the document allows is answered.
        #expect(try web.get("/api/v1/utensils?search=" + String(repeating: "a", count: 200)).status == 200)
        #expect(try web.get("/api/v1/utensils?search=" + String(repeating: "e%CC%81", count: 100)).status == 200)
        // A request line far beyond what any browser sends: refused, and the daemon lives on.
        let huge = try web.exchange(Data("GET /api/v1/utensils?search=\(String(repeating: "b", count: 200_000)) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        #expect((400..<500).contains(huge.status))
        let garbage = try? web.exchange(Data("\u{1}\u{2}NOT HTTP\r\n\r\n".utf8))
        #expect(garbage.map { (400..<500).contains($0.status) } ?? true)
        #expect(try web.get("/api/v1/status").status == 200)
        try InvariantChecker(world: world).verify(inputs: inputs)
        _ = daemon
    }

    @Test func thumbnailsAndOriginalsStreamWithETagsAndNothingElseIsReachable() throws {
        let (world, daemon, web, _) = try Self.populated()
        defer { world.remove() }
        for id in Self.ids(world) {
            let thumbnail = try web.get("/thumbnails/\(id).jpeg")
            #expect(thumbnail.status == 200)
            #expect(thumbnail.headers["content-type"] == "image/jpeg")
            #expect(thumbnail.body == (try Data(contentsOf: world.thumbnails.appendingPathComponent("\(id).jpeg"))))
            let etag = try #require(thumbnail.headers["etag"])
            #expect(thumbnail.headers["cache-control"]?.contains("no-cache") == true)
            let again = try web.get("/thumbnails/\(id).jpeg", headers: ["If-None-Match": etag])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            let versioned = try web.get("/thumbnails/\(id).jpeg?v=1")
            #expect(versioned.headers["cache-control"]?.contains("max-age=31536000") == true)

            let info = try Self.json(try web.get("/api/v1/utensils/" + id))
            let fileExtension = try #require(info["extension"] as? String)
            let original = try web.get("/originals/\(id).\(fileExtension)")
            #expect(original.status == 200)
            #expect(original.headers["content-type"] == (fileExtension == "png" ? "image/png" : "image/jpeg"))
            #expect(original.body == (try Data(contentsOf: world.originals.appendingPathComponent("\(id).\(fileExtension)"))))
            #expect(try web.get("/originals/\(id).\(fileExtension == "png" ? "jpg" : "png")").status == 404)
            #expect(try web.get("/thumbnails/\(id).png").status == 404)
            #expect(try web.get("/thumbnails/\(id).jpeg%2F..%2F..%2Futensils.sqlite").status == 404)
        }
        let traversals = [
            "/thumbnails/../utensils.sqlite", "/thumbnails/..%2Futensils.sqlite", "/thumbnails/%2e%2e%2futensils.sqlite",
            "/originals/..%2F..%2F..%2Fetc%2Fpasswd", "/originals/../../etc/passwd", "/thumbnails/utensils.sqlite",
            "/thumbnails/00000000-0000-0000-0000-000000000000.jpeg", "/originals/00000000-0000-0000-0000-000000000000.jpg",
            "/thumbnails/%00.jpeg", "/originals/" + String(repeating: "A", count: 5000) + ".jpg",
            "/api/v1/utensils/../../status", "/api/v1/utensils/not-an-id", "/state/utensils.sqlite", "/nowhere",
        ]
        for path in traversals {
            let reply = try web.get(path)
            #expect(reply.status == 404 || reply.status == 400, "\(path.prefix(80)) gave \(reply.status)")
            #expect(!reply.text.contains("SQLite format"), "\(path.prefix(80)) leaked the catalog")
        }
        _ = daemon
    }

    @Test func securityHeadersAreOnEveryResponse() throws {
        let (world, daemon, web, _) = try Self.populated()
        defer { world.remove() }
        for path in ["/api/v1/status", "/api/v1/utensils", "/nowhere", "/thumbnails/\(Self.ids(world)[0]).jpeg"] {
            let reply = try web.get(path)
            let policy = try #require(reply.headers["content-security-policy"], "\(path) has no CSP")
            #expect(policy.contains("default-src 'none'"))
            #expect(!policy.contains("unsafe-inline"))
            #expect(reply.headers["x-content-type-options"] == "nosniff")
        }
        _ = daemon
    }

    @Test func theEventStreamShowsIngestsAndRejectionsAsTheyHappen() throws {
        let (world, daemon, web, _) = try Self.populated()
        defer { world.remove() }
        let images = try TestImages.make([TestImages.jpeg(world.root.path + "/c", seed: 3)])
        let seen = try web.stream("/api/v1/events", seconds: 60, onOpen: {
            try world.drop("Ladle.jpg", images[0])
            try world.drop("Not a photo.png", Data("plain text".utf8))
        }) { text in
            text.contains("event: ingested") && text.contains("Ladle") && text.contains("event: rejected")
                && text.contains("Not a photo.png")
        }
        #expect(seen.contains("text/event-stream"))
        #expect(seen.contains("\"reason\":\"corrupt-image\"") || seen.contains("\"reason\":\"extension-mismatch\""))
        try daemon.waitForUtensils(3)
    }
}
