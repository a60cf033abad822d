import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Only root and the daemon's user may change who can sign in: a web users file that its
/// group or others may write (so any member of the daemon's group could put their own hash
/// on another user's line) signs nobody in, and the journal says what to run.
@Suite("the web users file's owner and mode against utensild", .serialized, .tags(.spawnsProcesses))
struct WebUsersFileTrustTests {
    static func signInStatus(_ web: WebClient) throws -> Int {
        try web.request(
            "POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("name=alice&password=\(WebAccessTests.password.replacingOccurrences(of: " ", with: "+"))".utf8)
        ).status
    }

    @Test func aUsersFileOthersMayWriteSignsNobodyIn() throws {
        let (world, daemon, web, users) = try WebAccessTests.world()
        defer { _ = daemon; world.remove() }
        #expect(chmod(users, 0o600) == 0)
        let (cookie, _) = try WebAccessTests.signIn(web)

        // Group-writable, as a group member could rewrite alice's hash: nobody signs in, and
        // a session already open ends.
        #expect(chmod(users, 0o660) == 0)
        #expect(try Self.signInStatus(web) == 503)
        let page = try web.get("/account", headers: ["Cookie": cookie])
        #expect(page.status != 200, "a session stayed open on a group-writable users file")
        try daemon.waitUntil(seconds: 10, "the journal to say why sign-ins are refused") {
            daemon.log.contains("does not use \(users) for sign-ins") && daemon.log.contains("chmod 0600")
        }

        // A folder others may write lets them replace the file: refused too.
        #expect(chmod(users, 0o600) == 0)
        #expect(try Self.signInStatus(web) == 303)
        #expect(chmod(world.root.path, 0o777) == 0)
        #expect(try Self.signInStatus(web) == 503)
        #expect(chmod(world.root.path, 0o700) == 0)

        // Fixed: sign-ins work again, and the journal said each problem once.
        #expect(try Self.signInStatus(web) == 303)
        let said = daemon.log.components(separatedBy: "does not use \(users) for sign-ins: users other than").count - 1
        #expect(said == 1, "the problem was logged \(said) times")
    }
}
