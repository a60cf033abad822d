import Foundation
import Testing
import UtensilTestSupport

/// Signing in, refusing changes without a session or from another site, and uploads, against
/// the real daemon; users made with the real `utensilctl web-user`.
@Suite("web access against utensild", .serialized, .tags(.spawnsProcesses))
struct WebAccessTests {
    static let password = "correct horse battery"

    /// Runs the real utensilctl with `input` on stdin.
    static func ctl(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = try UtensildProcess.built("utensilctl")
        process.arguments = arguments
        let stdin = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// The photo every world starts with (the utensil "Spatula").
    static let spatula = Result(catching: { try TestImages.make([TestImages.jpeg(FileManager.default.temporaryDirectory.path + "/spatula-\(getpid())", seed: 7)])[0] })

    /// A daemon with one utensil, a user `alice`, its gallery on `web.sock` (started through
    /// `launcher`, see `RunningDaemon`).
    static func world(extra: [String] = [], launcher: [String] = []) throws -> (TestWorld, RunningDaemon, WebClient, String) {
        let world = try TestWorld()
        let users = world.root.appendingPathComponent("web-users").path
        let added = try ctl(["web-user", "add", "alice", "--users-file", users], input: password + "\n")
        #expect(added.status == 0, "\(added.errors)")
        try world.drop("Spatula.jpg", try spatula.get())
        let socket = world.root.appendingPathComponent("web.sock").path
        let daemon = try RunningDaemon(
            world: world, extra: ["--web-listen", "unix:" + socket, "--web-users-file", users] + extra, launcher: launcher)
        try daemon.waitForUtensils(1)
        // The row commits before its files are moved into place: callers read the thumbnails.
        try daemon.waitUntil("the thumbnail in place") { !world.files(in: world.thumbnails).isEmpty }
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: socket) }
        return (world, daemon, WebClient(socketPath: socket), users)
    }

    static func signIn(_ web: WebClient, headers: [String: String] = [:]) throws -> (cookie: String, setCookie: String) {
        let reply = try web.request(
            "POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"].merging(headers) { $1 },
            body: Data("name=alice&password=\(password.replacingOccurrences(of: " ", with: "+"))".utf8))
        #expect(reply.status == 303, "sign-in gave \(reply.status): \(reply.text.prefix(300))")
        let setCookie = try #require(reply.headers["set-cookie"])
        return (String(setCookie.prefix { $0 != ";" }), setCookie)
    }

    static func multipart(_ files: [(name: String, bytes: Data)], boundary: String = "XyZzY", fields: [(String, String)] = []) -> Data {
        var body = Data()
        for (name, value) in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for file in files {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"\(file.name)\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            body += file.bytes + Data("\r\n".utf8)
        }
        return body + Data("--\(boundary)--\r\n".utf8)
    }

    static func upload(_ web: WebClient, cookie: String?, _ body: Data, boundary: String = "XyZzY", headers: [String: String] = [:]) throws -> WebClient.Reply {
        var all = ["Content-Type": "multipart/form-data; boundary=\(boundary)"]
        if let cookie { all["Cookie"] = cookie }
        return try web.request("POST", "/api/v1/uploads", headers: all.merging(headers) { $1 }, body: body)
    }

    @Test func webUserAddIntoAMissingFolderSaysTheFolderIsMissing() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let users = world.root.appendingPathComponent("no-such-folder/web-users").path
        let added = try Self.ctl(["web-user", "add", "bob", "--users-file", users], input: "longenough\n")
        #expect(added.status == 1, "\(added.errors)")
        #expect(added.errors.contains("does not exist") && !added.errors.contains("run as root"), "\(added.errors)")
    }

    @Test func webUserAddRemoveListManageTheFile() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let users = world.root.appendingPathComponent("web-users").path
        #expect(try Self.ctl(["web-user", "add", "bob", "--users-file", users], input: "longenough\n").status == 0)
        #expect(try Self.ctl(["web-user", "add", "carol", "--users-file", users], input: "longenough\n").status == 0)
        #expect(try Self.ctl(["web-user", "list", "--users-file", users]).output == "bob\ncarol\n")
        let text = try String(contentsOfFile: users, encoding: .utf8)
        #expect(text.hasPrefix("bob:$2b$12$"))
        #expect(!text.contains("longenough"))
        let attributes = try FileManager.default.attributesOfItem(atPath: users)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        #expect(try Self.ctl(["web-user", "add", "dave", "--users-file", users], input: "short\n").status == 1)
        #expect(try Self.ctl(["web-user", "add", "no:colon", "--users-file", users], input: "longenough\n").status == 64)
        #expect(try Self.ctl(["web-user", "remove", "bob", "--users-file", users]).status == 0)
        #expect(try Self.ctl(["web-user", "remove", "bob", "--users-file", users]).status == 1)
        #expect(try Self.ctl(["web-user", "list", "--users-file", users]).output == "carol\n")
    }

    @Test func changesNeedASessionAndTheGallerysOwnPages() throws {
        let (world, daemon, web, _) = try Self.world()
        defer { world.remove() }
        let id = try #require(world.files(in: world.thumbnails).first.map { String($0.prefix(36)) })
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        // Without a session: 401, and nothing changed.
        #expect(try web.request("POST", "/utensils/\(id)/rename", headers: form, body: Data("name=Hacked".utf8)).status == 401)
        #expect(try web.request("POST", "/utensils/\(id)/delete", headers: form).status == 401)
        #expect(try web.request("POST", "/utensils/\(id)/category", headers: form, body: Data("category=Hacked".utf8)).status == 401)
        #expect(try web.request("POST", "/utensils/\(id)/restore", headers: form).status == 401)
        #expect(try Self.upload(web, cookie: nil, Self.multipart([("x.jpg", Data("x".utf8))])).status == 401)
        #expect(try web.request("POST", "/utensils/\(id)/rename", headers: form.merging(["Cookie": "utensild_session=forged"]) { $1 },
                                body: Data("name=Hacked".utf8)).status == 401)

        let (cookie, setCookie) = try Self.signIn(web)
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.contains("SameSite=Strict"))
        #expect(!setCookie.contains("Secure"))
        #expect(try Self.signIn(web, headers: ["X-Forwarded-Proto": "https"]).setCookie.contains("; Secure"))

        // A cross-site form post, even with the session cookie: 403.
        let crossSite = [
            ["Origin": "http://evil.example"], ["Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-site"],
            ["Origin": "null"],
        ]
        for headers in crossSite {
            let all = form.merging(headers) { $1 }.merging(["Cookie": cookie]) { $1 }
            #expect(try web.request("POST", "/utensils/\(id)/rename", headers: all, body: Data("name=Hacked".utf8)).status == 403)
            #expect(try web.request("POST", "/utensils/\(id)/delete", headers: all).status == 403)
            #expect(try web.request("POST", "/utensils/\(id)/category", headers: all, body: Data("category=Hacked".utf8)).status == 403)
            #expect(try web.request("POST", "/utensils/\(id)/restore", headers: all).status == 403)
            #expect(try Self.upload(web, cookie: cookie, Self.multipart([("x.jpg", Data("x".utf8))]), headers: headers).status == 403)
        }
        #expect(try daemon.waitForCatalog("nothing changed") { $0.count == 1 && $0[0].name == "Spatula" }.count == 1)

        // Same-origin, signed in: the rename and the delete happen.
        let sameSite = form.merging(["Cookie": cookie, "Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"]) { $1 }
        let renamed = try web.request("POST", "/utensils/\(id)/rename", headers: sameSite, body: Data("name=Fish+slice".utf8))
        #expect(renamed.status == 303)
        try daemon.waitForCatalog("the rename") { $0.first?.name == "Fish slice" }
        let page = try web.get("/utensils/\(id)", headers: ["Cookie": cookie])
        #expect(page.text.contains("Signed in as <a href=\"/account\" title=\"Your account: change your password\"><strong>alice</strong></a>"))
        #expect(page.text.contains("/utensils/\(id)/delete"))
        #expect(!(try web.get("/utensils/\(id)")).text.contains("/delete"))
        // Change category, and take it out of every category again (`set-category --none`).
        #expect(page.text.contains("/utensils/\(id)/category"))
        let categorized = try web.request("POST", "/utensils/\(id)/category", headers: sameSite, body: Data("category=Fish+tools".utf8))
        #expect(categorized.status == 303)
        try daemon.waitForCatalog("the category change") { $0.first?.category == "Fish tools" }
        #expect(try web.get("/utensils/\(id)").text.contains("Fish tools"))
        #expect(try web.request("POST", "/utensils/\(id)/category", headers: sameSite, body: Data("category=".utf8)).status == 303)
        try daemon.waitForCatalog("no category") { $0.first.map { $0.category == nil } ?? false }
        #expect(try web.request("POST", "/utensils/\(id)/delete", headers: sameSite).status == 303)
        // A delete moves the utensil to the trash (trash_days), like `utensilctl delete`.
        try daemon.waitForCatalog("the delete") { $0.allSatisfy { $0.trashedAt != nil } }
        // The trash page lists it for everyone; signed-in users may restore it from there.
        #expect(try web.get("/trash").text.contains("Fish slice"))
        #expect(!(try web.get("/trash")).text.contains("/utensils/\(id)/restore"))
        #expect(try web.get("/trash", headers: ["Cookie": cookie]).text.contains("/utensils/\(id)/restore"))
        #expect(try web.request("POST", "/utensils/\(id)/restore", headers: sameSite, body: Data("as=".utf8)).status == 303)
        try daemon.waitForCatalog("the restore") { $0.first.map { $0.trashedAt == nil && $0.name == "Fish slice" } ?? false }
        #expect(try web.get("/trash").text.contains("The trash is empty."))
        #expect(try web.request("POST", "/utensils/\(id)/delete", headers: sameSite).status == 303)
        try daemon.waitForCatalog("the second delete") { $0.allSatisfy { $0.trashedAt != nil } }
        // Its name taken meanwhile: 409, the sentence pointing at the page's own field, not at
        // utensilctl; restored under another name it comes back.
        let another = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("other").path, seed: 8)])[0]
        try world.drop("Fish slice.jpg", another)
        try daemon.waitForCatalog("a new Fish slice") { $0.contains { $0.name == "Fish slice" && $0.trashedAt == nil } }
        let clash = try web.request("POST", "/utensils/\(id)/restore", headers: sameSite, body: Data("as=".utf8))
        #expect(clash.status == 409)
        #expect(clash.text.contains("field beside Restore"))
        #expect(!clash.text.contains("utensilctl"))
        #expect(try web.request("POST", "/utensils/\(id)/restore", headers: sameSite, body: Data("as=Old+fish+slice".utf8)).status == 303)
        try daemon.waitForCatalog("the restore under another name") { $0.contains { $0.name == "Old fish slice" && $0.trashedAt == nil } }

        // Signed out: the cookie no longer works.
        #expect(try web.request("POST", "/logout", headers: ["Cookie": cookie]).status == 303)
        #expect(try web.request("POST", "/utensils/\(id)/delete", headers: form.merging(["Cookie": cookie]) { $1 }).status == 401)
    }

    @Test func failedSignInsAreSlowedDown() throws {
        let (world, daemon, web, users) = try Self.world()
        defer { world.remove() }
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        #expect(try web.request("POST", "/login", headers: form, body: Data("name=alice&password=wrong".utf8)).status == 401)
        let slowed = try web.request("POST", "/login", headers: form, body: Data("name=alice&password=wrong".utf8))
        #expect(slowed.status == 429)
        #expect(slowed.headers["retry-after"] != nil)
        #expect(slowed.text.contains("wait"))
        // An unknown user is refused like a wrong password.
        #expect(try web.request("POST", "/login", headers: form, body: Data("name=mallory&password=x".utf8)).status == 401)
        // A removed user's session ends.
        try daemon.waitUntil(seconds: 10, "the back-off to pass") {
            (try? web.request("POST", "/login", headers: form, body: Data("name=alice&password=\(Self.password.replacingOccurrences(of: " ", with: "+"))".utf8)).status) == 303
        }
        let (cookie, _) = try Self.signIn(web)
        #expect(try web.get("/", headers: ["Cookie": cookie]).text.contains("Signed in as"))
        #expect(try Self.ctl(["web-user", "remove", "alice", "--users-file", users]).status == 0)
        #expect(!(try web.get("/", headers: ["Cookie": cookie]).text.contains("Signed in as")))
    }

    @Test func uploadsGoThroughTheInboxAndHostileBodiesLeaveNothingBehind() throws {
        let (world, daemon, web, _) = try Self.world(extra: ["--max-file-bytes", "200000"])
        defer { world.remove() }
        let (cookie, _) = try Self.signIn(web)
        let images = try TestImages.make([
            TestImages.jpeg(world.root.path + "/b", width: 300, height: 200, seed: 8),
            TestImages.jpeg(world.root.path + "/c", width: 300, height: 200, seed: 9),
        ])
        var inputs = images
        inputs.append(Data("not an image".utf8))
        inputs.append(try Self.spatula.get())
        // A good photo and a bad one: both land in the inbox; the pipeline takes them.
        let seen = try web.stream("/api/v1/events", seconds: 60, onOpen: {
            let reply = try Self.upload(web, cookie: cookie, Self.multipart([("Tongs.jpg", images[0]), ("../../Evil.jpg", inputs[2])]))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.text.contains(#""inboxFile":"Tongs.jpg""#))
            #expect(reply.text.contains(#""inboxFile":"Evil.jpg""#), "the path is cut to its last component: \(reply.text)")
        }) { $0.contains("Tongs") && $0.contains("event: rejected") }
        #expect(seen.contains("Evil.jpg"))
        let rows = try daemon.waitForCatalog("the upload") { $0.contains { $0.name == "Tongs" } }
        #expect(rows.first { $0.name == "Tongs" }?.addedBy == "alice", "an upload's addedBy is the signed-in user")
        #expect(rows.first { $0.name == "Spatula" }?.addedBy != "alice")

        // Into a category's folder.
        let categorised = try Self.upload(web, cookie: cookie, Self.multipart([("Grater.jpg", images[1])], fields: [("category", "Graters")]))
        #expect(categorised.text.contains(#""inboxFile":"Graters/Grater.jpg""#), "\(categorised.text)")
        try daemon.waitForCatalog("the categorised upload") { $0.contains { $0.name == "Grater" } }
        for category in ["..", ".hidden", "a/b"] {
            let refused = try Self.upload(web, cookie: cookie, Self.multipart([("X.jpg", images[1])], fields: [("category", category)]))
            #expect(refused.text.contains(#""status":"refused""#), "\(category): \(refused.text)")
        }

        // Too large for max_file_bytes: refused while streaming, nothing left.
        let big = Data(repeating: 0xAB, count: 300_000)
        let tooLarge = try Self.upload(web, cookie: cookie, Self.multipart([("Huge.jpg", big)]))
        #expect(tooLarge.text.contains(#""status":"refused""#) && tooLarge.text.contains("max_file_bytes"), "\(tooLarge.text)")
        // Malformed bodies: 400, and no temporary file stays in the inbox.
        let malformed: [Data] = [
            Data("--XyZzY\r\nContent-Disposition: form-data; name=\"files\"; filename=\"Cut.jpg\"\r\n\r\n".utf8) + images[1].prefix(100),
            Data("no boundary at all".utf8),
            Data("--XyZzY\r\n".utf8) + Data(repeating: 0x41, count: 40_000),
            Data("--XyZzY\r\nContent-Disposition: form-data; name=\"files\"; filename=\"J.jpg\"\r\n\r\nabc\r\n--XyZzYjunk".utf8),
            // What schemathesis sent when multipart-kit 4.7.1 stopped the daemon on a header
            // byte >= 0x80.
            Data("--XyZzY\r\n".utf8) + Data([0xF2, 0xB6, 0xBA, 0x9D, 0x0F, 0xF3, 0xA8, 0xB9, 0xAF, 0xC3, 0x82]) + Data("--XyZzY--\r\n".utf8),
            Data("--XyZzY\r\n[]--XyZzY--\r\n".utf8),
        ]
        for body in malformed {
            let reply = try Self.upload(web, cookie: cookie, body)
            #expect(reply.status == 400, "\(reply.status): \(reply.text)")
            #expect(reply.text.contains("multipart"))
        }
        // A header name of bytes >= 0x80 is a header like any other: the part is neither a file
        // nor a field, so the upload holds no file.
        let highBytes = Data("--XyZzY\r\n".utf8) + Data([0xC3, 0xA9, 0xFF]) + Data(": x\r\n\r\nabc\r\n--XyZzY--\r\n".utf8)
        #expect(try Self.upload(web, cookie: cookie, highBytes).status == 400)
        #expect(try web.request("GET", "/api/v1/status").status == 200)
        #expect(try Self.upload(web, cookie: cookie, Data(), boundary: String(repeating: "b", count: 71)).status == 415)
        #expect(try web.request("POST", "/api/v1/uploads", headers: ["Cookie": cookie, "Content-Type": "text/plain"], body: Data("x".utf8)).status == 415)
        // A declared length far over the limit is refused before a byte is read.
        let fd = try web.connect()
        _ = web.send(fd, Data("POST /api/v1/uploads HTTP/1.1\r\nHost: localhost\r\nCookie: \(cookie)\r\nContent-Type: multipart/form-data; boundary=XyZzY\r\nContent-Length: 999999999999\r\n\r\n".utf8))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        close(fd)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).hasPrefix("HTTP/1.1 413"))

        try daemon.waitUntil("the inbox to empty") {
            (try? FileManager.default.subpathsOfDirectory(atPath: world.inbox.path).filter { !$0.hasSuffix("Graters") }.isEmpty) == true
        }
        #expect(try web.get("/api/v1/status").status == 200)
        try InvariantChecker(world: world).verify(inputs: inputs, inbox: .mustBeEmpty)
    }
}
