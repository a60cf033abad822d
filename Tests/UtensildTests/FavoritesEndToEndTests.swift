import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Favorites through the real daemon: `utensilctl favorite`, `unfavorite`, `list --favorites`
/// and the gallery's star, each user seeing only their own; the Unix user and the web user of
/// one name share them.
@Suite("favorites against utensild", .serialized, .tags(.spawnsProcesses))
struct FavoritesEndToEndTests {
    typealias Ctl = UtensilctlEndToEndTests

    /// The ids of `list --json` with `arguments`, run as `user` (nil: root).
    static func ids(_ arguments: [String], socket: String, user: UInt32? = nil) throws -> [String] {
        let run = try Ctl.ctl(["list", "--json"] + arguments, socket: socket, user: user)
        #expect(run.status == 0, "\(run.errors)")
        return ((run.json?["utensils"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    @Test func favoriteUnfavoriteAndListFavoritesPerUser() throws {
        let (world, daemon, socket) = try Ctl.populated()
        defer { world.remove() }
        let all = try Self.ids([], socket: socket)
        #expect(all.count == 2)
        // By name: two drops made at once may be ingested in either order.
        let torch = try #require(try Self.ids(["--search", "brulee"], socket: socket).first)
        let knife = try #require(all.first { $0 != torch })

        // An unknown id (or not an id at all) is not-found: exit 1, one line saying what to do.
        for unknown in ["00000000-0000-0000-0000-000000000000", "Spoon"] {
            let missing = try Ctl.ctl(["favorite", unknown], socket: socket)
            #expect(missing.status == 1, "\(missing.errors)")
            #expect(missing.errors.contains("utensilctl list"), "\(missing.errors)")
            let json = try Ctl.ctl(["unfavorite", unknown, "--json"], socket: socket)
            #expect(json.status == 1)
        }

        let marked = try Ctl.ctl(["favorite", torch, "--json"], socket: socket)
        #expect(marked.status == 0, "\(marked.errors)")
        #expect(marked.json?["favorite"] as? Bool == true)
        #expect(marked.json?["id"] as? String == torch)
        #expect(try Ctl.ctl(["favorite", torch], socket: socket).output.contains("is one of your favorites"))
        #expect(try Self.ids(["--favorites"], socket: socket) == [torch])
        // Combined with the other filters and orders.
        #expect(try Self.ids(["--favorites", "--search", "brulee"], socket: socket) == [torch])
        #expect(try Self.ids(["--favorites", "--search", "包丁"], socket: socket).isEmpty)
        #expect(try Self.ids(["--favorites", "--sort", "name", "--limit", "1"], socket: socket) == [torch])
        #expect(try Self.ids(["--favorites", "--category", "Nothing"], socket: socket).isEmpty)
        // `favorite` in every utensil the caller is shown.
        let listed = try #require(try Ctl.ctl(["list", "--json"], socket: socket).json?["utensils"] as? [[String: Any]])
        #expect(listed.map { $0["favorite"] as? Bool } == listed.map { Optional($0["id"] as? String == torch) })
        #expect(try Ctl.ctl(["show", torch, "--json"], socket: socket).json?["favorite"] as? Bool == true)
        #expect(try Ctl.ctl(["show", knife, "--json"], socket: socket).json?["favorite"] as? Bool == false)
        #expect(try Ctl.ctl(["show", torch], socket: socket).output.contains("yes (yours)"))

        // Another user (nobody, outside the socket's group) has favorites of their own.
        #expect(chmod(socket, 0o666) == 0)
        #expect(chmod(world.root.path, 0o755) == 0)
        #expect(try Self.ids(["--favorites"], socket: socket, user: 65534).isEmpty)
        let theirs = try Ctl.ctl(["favorite", knife], socket: socket, user: 65534)
        #expect(theirs.status == 0, "\(theirs.errors)")
        #expect(try Self.ids(["--favorites"], socket: socket, user: 65534) == [knife])
        #expect(try Self.ids(["--favorites"], socket: socket) == [torch])
        let shownToThem = try Ctl.ctl(["show", torch, "--json"], socket: socket, user: 65534)
        #expect(shownToThem.json?["favorite"] as? Bool == false)

        // Kept through the trash, back with the restore.
        #expect(try Ctl.ctl(["delete", torch], socket: socket).status == 0)
        #expect(try Self.ids(["--favorites"], socket: socket).isEmpty)
        #expect(try Ctl.ctl(["restore", torch], socket: socket).status == 0)
        #expect(try Self.ids(["--favorites"], socket: socket) == [torch])

        let unmarked = try Ctl.ctl(["unfavorite", torch, "--json"], socket: socket)
        #expect(unmarked.status == 0, "\(unmarked.errors)")
        #expect(unmarked.json?["favorite"] as? Bool == false)
        #expect(try Ctl.ctl(["unfavorite", torch], socket: socket).status == 0)  // Again: no error.
        #expect(try Self.ids(["--favorites"], socket: socket).isEmpty)
        #expect(try Ctl.ctl(["list", "--favorites"], socket: socket).output.contains("no favorites yet"))
        #expect(try daemon.terminate() == 0)
    }

    @Test func theGallerysStarIsTheSignedInUsersAndTheUnixUsersOfTheSameName() throws {
        let (world, daemon, web, users) = try WebAccessTests.world()
        defer { world.remove() }
        let socket = world.root.appendingPathComponent("control.sock").path
        let id = try #require(try Self.ids([], socket: socket).first)
        let unixUser = String(cString: getpwuid(geteuid()).pointee.pw_name)
        let added = try WebAccessTests.ctl(["web-user", "add", unixUser, "--users-file", users], input: WebAccessTests.password + "\n")
        #expect(added.status == 0, "\(added.errors)")
        let form = ["Content-Type": "application/x-www-form-urlencoded"]

        // A visitor sees no star, may not star, and has no favorites to list.
        #expect(!(try web.get("/")).text.contains("/favorite\""))
        #expect(try web.request("POST", "/utensils/\(id)/favorite", headers: form, body: Data("back=/".utf8)).status == 401)
        #expect(try web.get("/api/v1/utensils?favorites=1").status == 401)
        #expect(try web.get("/?favorites=1").status == 401)
        // Only the documented values (the OpenAPI document's enum): an empty one too is 400.
        for query in ["favorites=", "favorites=yes", "sort=", "limit="] {
            #expect(try web.get("/api/v1/utensils?\(query)").status == 400, "\(query)")
        }
        #expect((try web.get("/api/v1/utensils/\(id)")).text.contains("\"favorite\":false"))

        // alice stars it: back to the page she was on, a filled star, listed under Favorites.
        let (alice, _) = try WebAccessTests.signIn(web)
        let gallery = try web.get("/", headers: ["Cookie": alice])
        #expect(gallery.text.contains("action=\"/utensils/\(id)/favorite\""))
        #expect(gallery.text.contains("aria-pressed=\"false\""))
        #expect(gallery.text.contains("Favorites</a>"))
        let sameSite = form.merging(["Cookie": alice, "Sec-Fetch-Site": "same-origin"]) { $1 }
        let starred = try web.request("POST", "/utensils/\(id)/favorite", headers: sameSite, body: Data("back=%2F%3Fsort%3Dname".utf8))
        #expect(starred.status == 303)
        #expect(starred.headers["location"] == "/?sort=name")
        // A `back` to another site is not followed.
        let elsewhere = try web.request("POST", "/utensils/\(id)/favorite", headers: sameSite, body: Data("back=%2F%2Fevil.example".utf8))
        #expect(elsewhere.headers["location"] == "/utensils/\(id)")
        let favorites = try web.get("/?favorites=1", headers: ["Cookie": alice])
        #expect(favorites.text.contains("data-id=\"\(id)\""))
        #expect(favorites.text.contains("action=\"/utensils/\(id)/unfavorite\""))
        #expect(favorites.text.contains("aria-pressed=\"true\""))
        let api = try web.get("/api/v1/utensils?favorites=1", headers: ["Cookie": alice])
        #expect(api.status == 200)
        #expect(api.text.contains(id) && api.text.contains("\"favorite\":true"))
        #expect(try web.get("/utensils/\(id)", headers: ["Cookie": alice]).text.contains("/utensils/\(id)/unfavorite"))
        // A cross-site star is refused; an unknown utensil is 404.
        let crossSite = form.merging(["Cookie": alice, "Origin": "http://evil.example"]) { $1 }
        #expect(try web.request("POST", "/utensils/\(id)/unfavorite", headers: crossSite).status == 403)
        #expect(try web.request("POST", "/utensils/00000000-0000-0000-0000-000000000000/favorite", headers: sameSite).status == 404)
        // alice's favorites are not root's, on the socket or on the web.
        #expect(try Self.ids(["--favorites"], socket: socket).isEmpty)

        // The web user named like the Unix user running utensilctl shares its favorites.
        let web2 = try web.request(
            "POST", "/login", headers: form,
            body: Data("name=\(unixUser)&password=\(WebAccessTests.password.replacingOccurrences(of: " ", with: "+"))".utf8))
        let same = String(try #require(web2.headers["set-cookie"]).prefix { $0 != ";" })
        #expect(try Ctl.ctl(["favorite", id], socket: socket).status == 0)
        #expect(try web.get("/api/v1/utensils?favorites=1", headers: ["Cookie": same]).text.contains(id))
        let unstar = try web.request(
            "POST", "/utensils/\(id)/unfavorite", headers: form.merging(["Cookie": same, "Sec-Fetch-Site": "same-origin"]) { $1 })
        #expect(unstar.status == 303)
        #expect(try Self.ids(["--favorites"], socket: socket).isEmpty)
        #expect(try web.get("/api/v1/utensils?favorites=1", headers: ["Cookie": alice]).text.contains(id))
        #expect(try daemon.terminate() == 0)
    }
}
