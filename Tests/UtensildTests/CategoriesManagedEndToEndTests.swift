import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// `utensilctl category rename|delete` and the gallery's category forms through the real
/// daemon: merges add up, a delete uncategorises, names are checked as `set-category` checks
/// them, only those who may change do, and the event stream announces each change.
@Suite("categories managed against utensild", .serialized, .tags(.spawnsProcesses))
struct CategoriesManagedEndToEndTests {
    typealias Ctl = UtensilctlEndToEndTests

    /// A daemon with the web world's Spatula and four utensils in three categories.
    static func world() throws -> (TestWorld, RunningDaemon, WebClient, String) {
        let (world, daemon, web, _) = try WebAccessTests.world()
        let images = try TestImages.make((1...4).map { TestImages.jpeg(world.root.path + "/c\($0)", seed: 20 + $0) })
        for (path, image) in zip(["Knifes/Santoku.jpg", "Knifes/Paring.jpg", "Knives/Cleaver.jpg", "Misc/Whisk.jpg"], images) {
            try world.drop(path, image)
        }
        try daemon.waitForUtensils(5)
        return (world, daemon, web, world.root.appendingPathComponent("control.sock").path)
    }

    static func categories(_ socket: String) throws -> [String: Int] {
        let run = try Ctl.ctl(["categories", "--json"], socket: socket)
        let list = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0["count"] as? Int ?? -1) })
    }

    @Test func renameMergesDeleteUncategorisesAndNamesAreChecked() throws {
        let (world, daemon, _, socket) = try Self.world()
        defer { world.remove() }
        #expect(try Self.categories(socket) == ["Knifes": 2, "Knives": 1, "Misc": 1])

        let unknown = try Ctl.ctl(["category", "rename", "Nothing", "Else"], socket: socket)
        #expect(unknown.status == 1)
        #expect(unknown.errors.contains("No category is called Nothing"), "\(unknown.errors)")
        for bad in ["a/b", "..", "Evil~", "Line\nbreak"] {
            let refused = try Ctl.ctl(["category", "rename", "Knifes", bad], socket: socket)
            #expect(refused.status == 1, "\(bad): \(refused.errors)")
        }
        // Someone outside the socket's group may not.
        #expect(chmod(socket, 0o666) == 0)
        #expect(chmod(world.root.path, 0o755) == 0)
        #expect(try Ctl.ctl(["category", "delete", "Misc"], socket: socket, user: 65534).status == 77)
        #expect(try Self.categories(socket) == ["Knifes": 2, "Knives": 1, "Misc": 1])

        // Into an existing category: a merge, spelled as that one is; the counts add up
        // (--json before the command, as everywhere).
        let merged = try Ctl.ctl(["--json", "category", "rename", "knifes", "KNIVES"], socket: socket)
        #expect(merged.status == 0, "\(merged.errors)")
        #expect(merged.json?["from"] as? String == "Knifes")
        #expect(merged.json?["to"] as? String == "Knives")
        #expect(merged.json?["merged"] as? Bool == true)
        #expect(merged.json?["moved"] as? Int == 2)
        #expect(merged.json?["count"] as? Int == 3)
        #expect(try Self.categories(socket) == ["Knives": 3, "Misc": 1])
        let knives = try Ctl.ctl(["list", "--category", "knives", "--json"], socket: socket)
        #expect((knives.json?["utensils"] as? [[String: Any]])?.count == 3)

        let renamed = try Ctl.ctl(["category", "rename", "Misc", "Whisks"], socket: socket)
        #expect(renamed.status == 0)
        #expect(renamed.output.contains("Renamed the category \"Misc\" to \"Whisks\" (1 utensil)."), "\(renamed.output)")

        // A delete leaves its utensils, uncategorised.
        let deleted = try Ctl.ctl(["category", "delete", "Whisks", "--json"], socket: socket)
        #expect(deleted.status == 0, "\(deleted.errors)")
        #expect(deleted.json?["to"] is NSNull)
        #expect(deleted.json?["moved"] as? Int == 1)
        #expect(try Self.categories(socket) == ["Knives": 3])
        let whisk = try Ctl.ctl(["show", "Whisk", "--json"], socket: socket)
        #expect(whisk.json?["category"] is NSNull)
        #expect(try Ctl.ctl(["category", "delete", "Whisks"], socket: socket).status == 1)
        #expect(daemon.log.contains("Merged the category Knifes into Knives (2 utensils moved, 3 in all) for root"), "\(daemon.log)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func theGallerysFormsRenameAndDeleteAndTheEventStreamTellsTheChips() throws {
        let (world, daemon, web, socket) = try Self.world()
        defer { world.remove() }
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        #expect(try web.request("POST", "/categories/rename", headers: form, body: Data("category=Knifes&name=Blades".utf8)).status == 401)
        #expect(!(try web.get("/?category=Knifes")).text.contains("/categories/rename"))
        let (cookie, _) = try WebAccessTests.signIn(web)
        let view = try web.get("/?category=Knifes", headers: ["Cookie": cookie])
        #expect(view.text.contains("action=\"/categories/rename\""))
        #expect(view.text.contains("action=\"/categories/delete\""))
        let sameSite = form.merging(["Cookie": cookie, "Sec-Fetch-Site": "same-origin"]) { $1 }
        let crossSite = form.merging(["Cookie": cookie, "Sec-Fetch-Site": "cross-site"]) { $1 }
        #expect(try web.request("POST", "/categories/delete", headers: crossSite, body: Data("category=Knifes".utf8)).status == 403)
        #expect(try web.request("POST", "/categories/rename", headers: sameSite, body: Data("category=Knifes&name=a%2Fb".utf8)).status == 400)
        #expect(try web.request("POST", "/categories/rename", headers: sameSite, body: Data("category=Nothing&name=X".utf8)).status == 404)

        // The rename, seen on the event stream as the chips see it.
        var reply: WebClient.Reply?
        let seen = try web.stream("/api/v1/events", seconds: 60, onOpen: {
            reply = try web.request("POST", "/categories/rename", headers: sameSite, body: Data("category=Knifes&name=Blades".utf8))
        }) { $0.contains("event: category") && $0.contains("\"from\":\"Knifes\"") }
        #expect(reply?.status == 303)
        #expect(reply?.headers["location"] == "/?category=Blades")
        #expect(seen.contains("\"to\":\"Blades\""))
        #expect(try Self.categories(socket) == ["Blades": 2, "Knives": 1, "Misc": 1])
        let merged = try web.request("POST", "/categories/rename", headers: sameSite, body: Data("category=Blades&name=knives".utf8))
        #expect(merged.headers["location"] == "/?category=Knives")
        #expect(try Self.categories(socket) == ["Knives": 3, "Misc": 1])
        #expect(try web.request("POST", "/categories/delete", headers: sameSite, body: Data("category=Misc".utf8)).status == 303)
        #expect(try Self.categories(socket) == ["Knives": 3])
        #expect(try web.get("/api/v1/categories").text.contains("Misc") == false)
        // Who did it: the signed-in user, not the daemon.
        #expect(daemon.log.contains("Renamed the category Knifes to Blades (2 utensils) for web user alice"), "\(daemon.log)")
        #expect(daemon.log.contains("CHANGED_BY=alice"))
        #expect(try daemon.terminate() == 0)
    }
}
