import Foundation
import Testing
import UtensilTestSupport

/// The signed-in user's account through the real daemon: sign out from every page, and a
/// password change that needs the old password, is written to the users file, ends every
/// other session of the user and keeps the one that asked.
@Suite("web accounts against utensild", .serialized, .tags(.spawnsProcesses))
struct AccountEndToEndTests {
    static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    static func body(_ pairs: [(String, String)]) -> Data {
        Data(pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&").utf8)
    }

    static func signedIn(_ web: WebClient, _ cookie: String) throws -> Bool {
        try web.get("/", headers: ["Cookie": cookie]).text.contains("action=\"/logout\"")
    }

    @Test func signOutIsOnEveryPage() throws {
        let (world, daemon, web, _) = try WebAccessTests.world()
        defer { world.remove() }
        let (cookie, _) = try WebAccessTests.signIn(web)
        let id = try #require(world.files(in: world.thumbnails).first.map { String($0.prefix(36)) })
        for page in ["/", "/?sort=name", "/trash", "/utensils/\(id)", "/account", "/login"] {
            let reply = try web.get(page, headers: ["Cookie": cookie])
            #expect(reply.status == 200, "\(page)")
            #expect(reply.text.contains("<form method=\"post\" action=\"/logout\""), "\(page) has no sign-out button")
            #expect(reply.text.contains("href=\"/account\""), "\(page) has no link to the account")
        }
        #expect(!(try web.get("/")).text.contains("action=\"/logout\""))
        #expect(try web.get("/account").status == 303)
        let out = try web.request("POST", "/logout", headers: ["Cookie": cookie, "Sec-Fetch-Site": "same-origin"])
        #expect(out.status == 303)
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(!(try Self.signedIn(web, cookie)))
        #expect(try daemon.terminate() == 0)
    }

    @Test func changingThePasswordEndsTheOtherSessionsButNotThisOne() throws {
        let (world, daemon, web, users) = try WebAccessTests.world()
        defer { world.remove() }
        let (here, _) = try WebAccessTests.signIn(web)
        let (elsewhere, _) = try WebAccessTests.signIn(web)
        let before = try String(contentsOfFile: users, encoding: .utf8)
        let inodeBefore = try FileManager.default.attributesOfItem(atPath: users)[.systemFileNumber] as? Int
        let newPassword = "a new pass phrase"
        let sameSite = Self.form.merging(["Cookie": here, "Sec-Fetch-Site": "same-origin"]) { $1 }
        #expect(try web.get("/account", headers: ["Cookie": here]).text.contains("action=\"/account/password\""))

        // Without a session, from another site, too short, or not repeated alike: refused.
        let change = Self.body([("old", WebAccessTests.password), ("new", newPassword), ("again", newPassword)])
        #expect(try web.request("POST", "/account/password", headers: Self.form, body: change).status == 401)
        let crossSite = Self.form.merging(["Cookie": here, "Origin": "http://evil.example"]) { $1 }
        #expect(try web.request("POST", "/account/password", headers: crossSite, body: change).status == 403)
        let short = Self.body([("old", WebAccessTests.password), ("new", "short"), ("again", "short")])
        #expect(try web.request("POST", "/account/password", headers: sameSite, body: short).status == 400)
        let differ = Self.body([("old", WebAccessTests.password), ("new", newPassword), ("again", newPassword + "!")])
        #expect(try web.request("POST", "/account/password", headers: sameSite, body: differ).status == 400)

        // A wrong old password is refused, and changes nothing.
        let wrong = try web.request(
            "POST", "/account/password", headers: sameSite,
            body: Self.body([("old", "not my password"), ("new", newPassword), ("again", newPassword)]))
        #expect(wrong.status == 403)
        #expect(wrong.text.contains("not your current password"))
        #expect(try String(contentsOfFile: users, encoding: .utf8) == before)
        #expect(try Self.signedIn(web, here) && Self.signedIn(web, elsewhere))

        // The right one (once the back-off after the wrong guess has passed).
        var changed: WebClient.Reply?
        try daemon.waitUntil(seconds: 10, "the back-off to pass") {
            changed = try? web.request("POST", "/account/password", headers: sameSite, body: change)
            return changed?.status != 429
        }
        let reply = try #require(changed)
        #expect(reply.status == 200, "\(reply.text.prefix(400))")
        #expect(reply.text.contains("Your password is changed"))
        let renewed = String(try #require(reply.headers["set-cookie"]).prefix { $0 != ";" })
        #expect(renewed != here)
        #expect(try Self.signedIn(web, renewed))
        #expect(!(try Self.signedIn(web, elsewhere)))
        #expect(!(try Self.signedIn(web, here)))

        // Written in place (the same file, its mode kept; only the hash differs), in the form
        // `utensilctl web-user` reads: the new password signs in, the old does not.
        let after = try String(contentsOfFile: users, encoding: .utf8)
        #expect(after != before && after.hasPrefix("alice:$2b$12$") && !after.contains(newPassword))
        #expect(after.utf8.count == before.utf8.count && after.prefix(6) == before.prefix(6))
        let attributes = try FileManager.default.attributesOfItem(atPath: users)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        #expect(attributes[.systemFileNumber] as? Int == inodeBefore, "the file was replaced, not written in place")
        #expect(try WebAccessTests.ctl(["web-user", "list", "--users-file", users]).output == "alice\n")
        let signIn = { (password: String) throws -> Int in
            try web.request("POST", "/login", headers: Self.form, body: Self.body([("name", "alice"), ("password", password)])).status
        }
        #expect(try signIn(WebAccessTests.password) == 401)
        try daemon.waitUntil(seconds: 10, "the back-off to pass") { (try? signIn(newPassword)) == 303 }
        #expect(try daemon.terminate() == 0)
    }
}
