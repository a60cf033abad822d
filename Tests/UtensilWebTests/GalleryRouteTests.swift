import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import UtensilWeb

/// docs/WEB.md's routes, statuses and headers, route by route, through the gallery's real
/// router in-process (no daemon, no socket); the backend is ``MemoryBackend``.
@Suite struct GalleryRouteTests {
    static let id = MemoryBackend.id

    @Test func theGalleryPageAndItsQueries() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(response.text.contains("Spoon"))
            }
            try await client.execute(uri: "/?search=spo&category=Kitchen&sort=name", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/?sort=sideways", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/?favorites=1", method: .get) { response in
                #expect(response.status == .unauthorized, "favorites are the signed-in user's")
            }
        }
    }

    @Test func aUtensilsPageItsMissingPageAndABadID() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/utensils/\(Self.id)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("/previews/\(Self.id).jpeg"))
            }
            try await client.execute(uri: "/utensils/\(UUID().uuidString)", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            }
            try await client.execute(uri: "/utensils/not-an-id", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// A missing utensil or page answers a page for people: the header's links, a heading,
    /// a sentence about the gallery (never a quoted `utensilctl` command), the way back.
    @Test func aMissingPageIsWrittenForPeople() async throws {
        try await Gallery().test { client in
            for uri in ["/utensils/\(UUID().uuidString)", "/utensils/not-an-id", "/no-such-page", "/static/nothing.js"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(response.headers[.contentType]?.hasPrefix("text/html") == true, "\(uri)")
                    let page = response.text
                    #expect(!page.contains("`"), "\(uri): \(page)")
                    #expect(!page.contains("utensilctl"), "\(uri)")
                    #expect(page.contains("<a href=\"/trash\">Trash</a>") && page.contains("<a href=\"/login\">Sign in</a>"), "\(uri)")
                    #expect(page.contains("<h1><a href=\"/\">Utensils</a></h1>"), "\(uri)")
                    #expect(page.contains("href=\"/\">← All utensils</a>"), "\(uri)")
                    #expect(page.contains("<title>No such"), "\(uri)")
                }
            }
            try await client.execute(uri: "/utensils/\(UUID().uuidString)", method: .get) {
                #expect($0.text.contains("<h2>No such utensil</h2>") && $0.text.contains("deleted"))
            }
            try await client.execute(uri: "/?sort=sideways", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("The sort must be one of"))
                #expect(response.text.contains("<a href=\"/trash\">Trash</a>"))
            }
        }
    }

    /// A utensil's page opened from the gallery keeps its list: the cards carry the list's
    /// query, the page links its previous and next there (`rel=prev`/`rel=next`), past the end
    /// of a page to the next page's first, and back to the same list, at its card.
    @Test func aUtensilsPageLeadsToItsNeighboursInTheSameList() async throws {
        try await Gallery(more: ["Fork", "Knife", "Ladle"]).test { client in
            let ids = try await client.execute(uri: "/api/v1/utensils?limit=500", method: .get) { response in
                (response.json["utensils"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            try #require(ids.count == 4)
            func links(_ uri: String) async throws -> (prev: String?, next: String?, back: String?) {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    let page = response.text
                    func href(_ prefix: String) -> String? {
                        guard let start = page.range(of: prefix) else { return nil }
                        return String(page[start.upperBound...].prefix { $0 != "\"" })
                    }
                    return (href("<a rel=\"prev\" href=\""), href("<a rel=\"next\" href=\""), href("<a class=\"back\" href=\""))
                }
            }
            try await client.execute(uri: "/?search=o&sort=name", method: .get) { response in
                #expect(response.text.contains("<li class=\"card\" id=\"u-\(ids[1])\" data-id=\"\(ids[1])\"><a href=\"/utensils/\(ids[1])?search=o&amp;sort=name\">"))
            }
            var found = try await links("/utensils/\(ids[1])?search=o&sort=name")
            #expect(found.prev == "/utensils/\(ids[0])?search=o&amp;sort=name")
            #expect(found.next == "/utensils/\(ids[2])?search=o&amp;sort=name")
            #expect(found.back == "/?search=o&amp;sort=name#u-\(ids[1])")
            found = try await links("/utensils/\(ids[0])")
            #expect(found.prev == nil && found.next == "/utensils/\(ids[1])" && found.back == "/#u-\(ids[0])")
            found = try await links("/utensils/\(ids[3])?favorites=0")
            #expect(found.prev == "/utensils/\(ids[2])" && found.next == nil)
            // The last of a page leads to the first of the next, which carries that page's cursor
            // and the one before it (`prior`, absent for the first page): its previous is the
            // last of that earlier page, once that page's `next` is confirmed to lead here.
            found = try await links("/utensils/\(ids[1])?limit=2")
            #expect(found.next == "/utensils/\(ids[2])?limit=2&amp;after=2")
            found = try await links("/utensils/\(ids[2])?limit=2&after=2")
            #expect(found.prev == "/utensils/\(ids[1])?limit=2")
            #expect(found.next == "/utensils/\(ids[3])?limit=2&amp;after=2" && found.back == "/?limit=2&amp;after=2#u-\(ids[2])")
            found = try await links("/utensils/\(ids[2])?limit=1&after=2&prior=1")
            #expect(found.prev == "/utensils/\(ids[1])?limit=1&amp;after=1" && found.next == "/utensils/\(ids[3])?limit=1&amp;after=3&amp;prior=2")
            #expect(found.back == "/?limit=1&amp;after=2&amp;prior=1#u-\(ids[2])")
            found = try await links("/utensils/\(ids[1])?limit=1&after=1")
            #expect(found.prev == "/utensils/\(ids[0])?limit=1")
            // A page before that does not lead here (a wrong `prior`, a page of another size): no previous.
            for query in ["limit=1&after=2&prior=0", "limit=1&after=2", "after=2"] {
                found = try await links("/utensils/\(ids[2])?\(query)")
                #expect(found.prev == nil, "\(query)")
            }
            // Previous, page after page back to the first: each link names the page before too.
            var at = "/utensils/\(ids[3])?limit=1&after=3&prior=2"
            var walked: [String] = []
            while let previous = try await links(at).prev?.replacingOccurrences(of: "&amp;", with: "&") {
                walked.append(previous)
                at = previous
            }
            #expect(
                walked == [
                    "/utensils/\(ids[2])?limit=1&after=2&prior=1", "/utensils/\(ids[1])?limit=1&after=1",
                    "/utensils/\(ids[0])?limit=1",
                ])
            // A query that names no list, or a visitor's favorites: the page, without neighbours.
            for query in ["sort=sideways", "favorites=1", "search=%zz"] {
                found = try await links("/utensils/\(ids[1])?\(query)")
                #expect(found.prev == nil && found.next == nil, "\(query)")
            }
        }
    }

    /// The `prior` of a page is found however far down the list it is: past several of the
    /// 500-utensil reads, at their edge, and none for the page after the first.
    @Test func aPagesPriorIsFoundFarDownTheList() async throws {
        let backend = try MemoryBackend(more: (1...1_100).map { "Fork \($0)" })
        defer { backend.remove() }
        var list = ListQuery(limit: 7)
        list.after = "3"
        for (position, prior) in [(1_003, "996"), (507, "500"), (10, "3"), (7, nil), (3, nil)] as [(Int, String?)] {
            let found = await ListNeighbours.prior(
                ofPageBeginningWith: backend.utensils[position].id, in: list, user: nil, backend: backend)
            #expect(found == prior, "\(position)")
        }
    }

    /// The gallery says how many utensils its list holds, and its "More" link (which gallery.js
    /// follows as the grid scrolls) names the next page and this one, as `after` and `prior`.
    @Test func theGalleryCountsItsListAndLinksTheNextPage() async throws {
        try await Gallery(more: ["Fork", "Knife", "Ladle"]).test { client in
            try await client.execute(uri: "/?limit=2", method: .get) { response in
                #expect(response.text.contains("<p class=\"total\" id=\"total\" data-count=\"1\">1 utensil</p>"), "the status's count")
                #expect(response.text.contains("<p class=\"more\"><a href=\"/?limit=2&amp;after=2\" rel=\"next\">More</a></p>"))
            }
            try await client.execute(uri: "/?limit=1&after=2&prior=1", method: .get) { response in
                #expect(response.text.contains("<a href=\"/?limit=1&amp;after=3&amp;prior=2\" rel=\"next\">More</a>"))
                #expect(response.text.contains("/utensils/\(Self.id)") == false)
            }
            try await client.execute(uri: "/?category=kitchen", method: .get) { response in
                #expect(response.text.contains("data-count=\"1\">1 utensil</p>"), "the category's count")
            }
            try await client.execute(uri: "/?search=o", method: .get) { response in
                // This backend's list ignores the search: a search is counted from its pages.
                #expect(response.text.contains("data-count=\"4\">4 utensils</p>"), "counted page by page")
            }
        }
        #expect(ListTotal(count: 12_345).text == "12,345 utensils")
        #expect(ListTotal(count: 5000, isAtLeast: true).text == "more than 5,000 utensils")
    }

    /// A utensil's page is the viewer's: the figure it zooms, and the original to show once
    /// zoomed past the preview's pixels when every browser shows its format.
    @Test func aUtensilsPageIsTheViewers() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/utensils/\(MemoryBackend.id)", method: .get) { response in
                #expect(response.text.contains("<figure class=\"viewer\" id=\"viewer\">"))
                #expect(response.text.contains("width=\"640\" height=\"480\" data-zoom-src=\"/originals/\(MemoryBackend.id).png?v="))
            }
        }
    }

    /// A small original in a format every browser shows is shown itself when its preview
    /// would weigh more; otherwise the preview.
    @Test func aSmallOriginalIsShownInsteadOfAHeavierPreview() async throws {
        let gallery = try Gallery()
        try await gallery.test { client in
            try await client.execute(uri: "/utensils/\(Self.id)", method: .get) { response in
                #expect(response.text.contains("<img class=\"preview\" src=\"/previews/\(Self.id).jpeg?v="), "a 14-byte PNG, a 13-byte preview")
            }
            try Data(repeating: 0xFF, count: 100).write(to: URL(fileURLWithPath: gallery.backend.previewPath(id: Self.id)))
            try await client.execute(uri: "/utensils/\(Self.id)", method: .get) { response in
                #expect(response.text.contains("<img class=\"preview\" src=\"/originals/\(Self.id).png?v="), "a 100-byte preview")
            }
        }
        let utensil = gallery.backend.utensil
        var large = utensil
        large.width = 4000
        #expect(!UtensilDetailPage.showsOriginal(large, previewBytes: 1 << 20), "larger than display size")
        var heic = utensil
        heic.fileExtension = "heic"
        #expect(!UtensilDetailPage.showsOriginal(heic, previewBytes: 1 << 20), "not every browser shows HEIC")
        #expect(!UtensilDetailPage.showsOriginal(utensil, previewBytes: nil), "no preview to compare with")
        #expect(UtensilDetailPage.showsOriginal(utensil, previewBytes: 14))
    }

    @Test func aCommandQuotedInAProblemShowsAsCode() {
        #expect(ProblemPage.prose("Run `utensilctl list` <now>.") == "Run <code>utensilctl list</code> &lt;now&gt;.")
        #expect(!ProblemPage.prose("a ` stray").contains("`"))
    }

    /// Times are written in UTC, labelled, inside `<time datetime>` for gallery.js to show
    /// as the viewer's local time.
    @Test func aUtensilsTimesAreUTCForTheScriptToLocalize() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/utensils/\(Self.id)", method: .get) { response in
                #expect(response.text.contains("<time datetime=\"2023-11-14T22:13:20.000Z\">2023-11-14 22:13 UTC</time>"), "\(response.text)")
            }
        }
    }

    /// The notices tray is there, hidden, for gallery.js to fill (nothing shows without it).
    @Test func theNoticesTrayWaitsHidden() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/", method: .get) { response in
                let page = response.text
                #expect(page.contains("<section class=\"tray\" id=\"tray\" aria-label=\"Notices\" hidden>"))
                #expect(page.contains("<div class=\"tray-panel\" id=\"tray-panel\" hidden>"))
                #expect(page.contains("aria-controls=\"tray-panel\""))
                let tray = try #require(page.range(of: "id=\"tray\""))
                let grid = try #require(page.range(of: "id=\"grid\""))
                #expect(tray.lowerBound < grid.lowerBound, "the tray is the one line above the grid")
            }
        }
    }

    @Test func theUtensilsAPIAnswersJSONAndRefusesABadQuery() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/api/v1/utensils?limit=1", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let utensils = response.json["utensils"] as? [[String: Any]]
                #expect(utensils?.first?["id"] as? String == Self.id)
                #expect(response.json.keys.contains("next"))
            }
            // (A cursor the daemon did not hand out is refused by the daemon's catalog, not here.)
            for query in ["limit=0", "limit=501", "limit=", "limit=ten", "sort=", "sort=sideways", "favorites=", "search=%zz"] {
                try await client.execute(uri: "/api/v1/utensils?\(query)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(query)")
                    #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, "\(query)")
                    #expect(response.errorCode == "bad-request", "\(query)")
                }
            }
            try await client.execute(uri: "/api/v1/utensils?search=\(String(repeating: "a", count: 201))", method: .get) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/v1/utensils?favorites=1", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/v1/utensils", method: .delete) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET, HEAD")
            }
        }
    }

    @Test func oneUtensilStatusAndCategoriesInTheAPI() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/api/v1/utensils/\(Self.id)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.json["name"] as? String == "Spoon")
                #expect(response.json["extension"] as? String == "png")
            }
            try await client.execute(uri: "/api/v1/utensils/\(UUID().uuidString)", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.errorCode == "not-found")
                // Worded for the gallery's users, who may have no `utensilctl`.
                #expect(response.text.contains("No utensil has that id; the gallery at / shows what there is."), "\(response.text)")
                #expect(!response.text.contains("utensilctl"))
            }
            try await client.execute(uri: "/api/v1/utensils/..%2F..%2Fetc%2Fpasswd", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/v1/status", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.json["utensils"] as? Int == 1)
            }
            try await client.execute(uri: "/api/v1/categories", method: .get) { response in
                #expect(response.status == .ok)
                let categories = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                #expect(categories?.first?["name"] as? String == "Kitchen")
                #expect(categories?.first?["count"] as? Int == 1)
            }
            try await client.execute(uri: "/api/v1/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect((response.json["openapi"] as? String)?.hasPrefix("3.1") == true)
                #expect((response.json["paths"] as? [String: Any])?.keys.contains("/api/v1/utensils") == true)
            }
        }
    }

    @Test func healthReadinessAndMetrics() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.json["status"] as? String == "ok")
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.json as? [String: String] == ["status": "ready", "catalog": "ok", "storage": "ok"])
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                #expect(response.text == "utensild_up 1\n")
            }
        }
        let down = Readiness(catalog: "not answering since 2026-01-01T00:00:00Z: connection refused", storage: nil)
        try await Gallery(readiness: down).test { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.json["status"] as? String == "not ready")
                #expect(response.json["catalog"] as? String == down.catalog)
                #expect(response.json["storage"] as? String == "ok")
            }
        }
    }

    @Test func thumbnailsPreviewsAndOriginals() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/thumbnails/\(Self.id).jpeg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.text == "thumbnail bytes")
                #expect(response.headers[.eTag] != nil)
                #expect(response.headers[.cacheControl]?.contains("no-cache") == true)
            }
            try await client.execute(uri: "/thumbnails/\(Self.id).jpeg?v=1", method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
            let etag = try await client.execute(uri: "/previews/\(Self.id).jpeg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.text == "preview bytes")
                return response.headers[.eTag] ?? ""
            }
            try await client.execute(uri: "/previews/\(Self.id).jpeg", method: .get, headers: [.ifNoneMatch: etag]) {
                #expect($0.status == .notModified)
            }
            try await client.execute(uri: "/originals/\(Self.id).png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.text == "original bytes")
            }
            try await client.execute(uri: "/originals/\(Self.id).jpeg", method: .get) {
                #expect($0.status == .notFound, "the extension must be the utensil's own")
            }
            try await client.execute(uri: "/thumbnails/\(UUID().uuidString).jpeg", method: .get) {
                #expect($0.status == .notFound)
            }
            for attempt in [
                "/thumbnails/..%2F..%2Fweb-users", "/thumbnails/..%2Fweb-users.jpeg", "/previews/%2E%2E%2Fpreviews.jpeg",
                "/originals/..%2F..%2Fetc%2Fpasswd", "/originals/\(Self.id)%00.png", "/thumbnails/\(Self.id).png",
            ] {
                try await client.execute(uri: attempt, method: .get) { response in
                    #expect(response.status == .notFound || response.status == .badRequest, "\(attempt)")
                    #expect(!response.text.contains("bytes"), "\(attempt)")
                }
            }
        }
    }

    @Test func anUnknownHostIsMisdirected() async throws {
        try await Gallery().test(host: "evil.example.com:8180") { client in
            for uri in ["/", "/api/v1/status", "/healthz", "/thumbnails/\(Self.id).jpeg"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .misdirectedRequest, "\(uri)") }
            }
        }
        for host in ["localhost:8180", "127.0.0.1", "[::1]:8180", "LOCALHOST."] {
            try await Gallery().test(host: host) { client in
                try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok, "\(host)") }
            }
        }
    }

    @Test func everyResponseCarriesTheSecurityHeaders() async throws {
        try await Gallery().test { client in
            for uri in ["/", "/api/v1/status", "/thumbnails/\(Self.id).jpeg", "/no-such-route", "/login"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(
                        response.headers[.contentSecurityPolicy]
                            == "default-src 'none'; img-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
                        "\(uri)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(uri)")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin", "\(uri)")
                }
            }
        }
    }
}

/// Signing in and the changes it guards (docs/WEB.md, "Access"), in-process.
@Suite struct GallerySignInTests {
    static let id = MemoryBackend.id
    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    @Test func signingInSetsTheSessionCookieAndAWrongPasswordDoesNot() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/login", method: .get) { #expect($0.status == .ok) }
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: Self.formHeaders,
                body: .form("name=alice&password=correct+horse+battery")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/")
                let cookie = response.headers[.setCookie] ?? ""
                #expect(cookie.hasPrefix("utensild_session="))
                #expect(cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Strict"))
                return String(cookie.prefix { $0 != ";" })
            }
            try await client.execute(uri: "/account", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("alice"))
            }
            try await client.execute(uri: "/api/v1/utensils?favorites=1", method: .get, headers: [.cookie: cookie]) {
                #expect($0.status == .ok, "a signed-in user has favorites")
            }
            try await client.execute(
                uri: "/login", method: .post, headers: Self.formHeaders,
                body: .form("name=alice&password=wrong+password")
            ) { response in
                #expect(response.status != .seeOther)
                #expect(response.status.code >= 400, "\(response.status)")
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }

    /// The upload box takes any image (so a phone offers its camera and library) and says so
    /// on a touch screen; "drop photos anywhere" is for a mouse (pointer: fine).
    @Test func theUploadBoxOffersTheCameraOnAPhone() async throws {
        try await Gallery().test { client in
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: Self.formHeaders, body: .form("name=alice&password=correct+horse+battery")
            ) { String(($0.headers[.setCookie] ?? "").prefix { $0 != ";" }) }
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                let page = response.text
                #expect(page.contains("id=\"upload-files\" multiple accept=\"image/*\">"), "\(page)")
                #expect(page.contains("<span class=\"pointer-coarse\">Take a photo or choose from your library</span>"))
                #expect(page.contains("<p class=\"hint pointer-fine\">…or drop photos anywhere on this page.</p>"))
            }
            try await client.execute(uri: "/utensils/\(UUID().uuidString)", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .notFound)
                #expect(response.text.contains("Signed in as"), "a missing page keeps the signed-in header")
            }
            // The category field offers the existing categories, and takes a new one too.
            try await client.execute(uri: "/utensils/\(Self.id)", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains("list=\"category-choices\""))
                #expect(response.text.contains("<datalist id=\"category-choices\"><option value=\"Kitchen\"></option></datalist>"))
            }
        }
    }

    /// A category chip's count is the whole catalog's: the gallery shows it, a search and the
    /// favorites do not (their total above the grid is the list's own, and would disagree).
    @Test func chipCountsAreTheGallerysNotASearchsOrTheFavorites() async throws {
        try await Gallery().test { client in
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: Self.formHeaders, body: .form("name=alice&password=correct+horse+battery")
            ) { String(($0.headers[.setCookie] ?? "").prefix { $0 != ";" }) }
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains(">Kitchen <span class=\"count\">1</span></a>"), "the whole gallery counts its categories")
            }
            try await client.execute(uri: "/?category=Kitchen", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains(">Kitchen <span class=\"count\">1</span></a>"), "a category's view too")
            }
            for narrowed in ["/?search=spo", "/?favorites=1", "/?search=spo&category=Kitchen&sort=name"] {
                try await client.execute(uri: narrowed, method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.status == .ok)
                    #expect(response.text.contains("data-category=\"Kitchen\"") && response.text.contains(">Kitchen</a>"), "\(narrowed)")
                    #expect(!response.text.contains("class=\"count\""), "\(narrowed): no whole-catalog count beside the list's total")
                    #expect(response.text.contains("id=\"total\""), "\(narrowed): the list's own total stays")
                }
            }
        }
    }

    /// A delete leads to the gallery with an Undo: a restore form for the utensil it names,
    /// while it is in the trash, for the signed-in user only.
    @Test func aDeleteOffersItsUndo() async throws {
        try await Gallery(more: ["Trashed whisk"]).test { client in
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: Self.formHeaders, body: .form("name=alice&password=correct+horse+battery")
            ) { String(($0.headers[.setCookie] ?? "").prefix { $0 != ";" }) }
            var signedIn = Self.formHeaders
            signedIn[.cookie] = cookie
            try await client.execute(uri: "/utensils/\(Self.id)/delete", method: .post, headers: signedIn, body: .form("")) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/?deleted=\(Self.id)")
            }
            let trashed = try await client.execute(uri: "/api/v1/utensils?limit=500", method: .get) { response in
                ((response.json["utensils"] as? [[String: Any]]) ?? []).first { $0["name"] as? String == "Trashed whisk" }?["id"] as? String
            }
            let id = try #require(trashed)
            try await client.execute(uri: "/?deleted=\(id)", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains("<span>Trashed whisk is in the trash.</span>"))
                #expect(response.text.contains("<form method=\"post\" action=\"/utensils/\(id)/restore\" class=\"inline\"><button type=\"submit\">Undo</button></form>"))
            }
            for (uri, headers) in [("/?deleted=\(id)", HTTPFields()), ("/?deleted=\(Self.id)", [.cookie: cookie]), ("/?deleted=..%2F", [.cookie: cookie])] {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(!response.text.contains("Undo"), "\(uri): not in the trash, or a visitor")
                }
            }
        }
    }

    /// A change's form asking for JSON (as gallery.js sends it, to change the page in place)
    /// is answered with the utensil as it now is, and a refusal with the JSON error; without
    /// `Accept: application/json` the same form still redirects.
    @Test func aChangeAskingForJSONAnswersTheUtensil() async throws {
        try await Gallery().test { client in
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: Self.formHeaders, body: .form("name=alice&password=correct+horse+battery")
            ) { String(($0.headers[.setCookie] ?? "").prefix { $0 != ";" }) }
            var script = Self.formHeaders
            script[.cookie] = cookie
            script[.accept] = "application/json"
            try await client.execute(uri: "/utensils/\(Self.id)/delete", method: .post, headers: script, body: .form("")) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect(response.json["id"] as? String == Self.id && response.json["name"] as? String == "Spoon", "\(response.text)")
            }
            try await client.execute(uri: "/utensils/\(Self.id)/rename", method: .post, headers: script, body: .form("name=Fork")) { response in
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "bad-request", "\(response.text)")
                #expect(!response.text.contains("<html"))
            }
            var form = Self.formHeaders
            form[.cookie] = cookie
            try await client.execute(uri: "/utensils/\(Self.id)/delete", method: .post, headers: form, body: .form("")) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/utensils/\(Self.id)/rename", method: .post, headers: form, body: .form("name=Fork")) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("<html"), "a page's form without the script gets a page")
            }
            // The gallery offers selecting several (shown by the script) with the categories.
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains("<section class=\"select-bar\" id=\"select-bar\" aria-label=\"Select several\" hidden>"))
                #expect(response.text.contains("<datalist id=\"category-choices\"><option value=\"Kitchen\"></option></datalist>"))
            }
            try await client.execute(uri: "/", method: .get) { #expect(!$0.text.contains("select-bar"), "a visitor changes nothing") }
        }
    }

    @Test func aChangeWithoutASessionIs401AndACrossSiteOneIs403() async throws {
        try await Gallery().test { client in
            for uri in ["/utensils/\(Self.id)/rename", "/utensils/\(Self.id)/delete", "/categories/delete", "/utensils/\(Self.id)/favorite"] {
                try await client.execute(uri: uri, method: .post, headers: Self.formHeaders, body: .form("name=Fork")) {
                    #expect($0.status == .unauthorized, "\(uri)")
                }
            }
            var crossSite = Self.formHeaders
            crossSite[.secFetchSite] = "cross-site"
            try await client.execute(uri: "/utensils/\(Self.id)/rename", method: .post, headers: crossSite, body: .form("name=Fork")) {
                #expect($0.status == .forbidden)
            }
            var otherOrigin = Self.formHeaders
            otherOrigin[.origin] = "http://evil.example.com"
            try await client.execute(uri: "/utensils/\(Self.id)/rename", method: .post, headers: otherOrigin, body: .form("name=Fork")) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(
                uri: "/login", method: .post, headers: otherOrigin, body: .form("name=alice&password=correct+horse+battery")
            ) { response in
                #expect(response.status == .forbidden, "a cross-site sign-in is refused before the password is looked at")
                #expect(response.headers[.setCookie] == nil)
            }
        }
    }
}
