import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Sessions that end with their password, and a sign-in throttle that parallel guesses
/// cannot outrun, against the real daemon.
@Suite("web sign-in against utensild", .serialized, .tags(.spawnsProcesses))
struct WebSignInTests {
    static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    static func signedIn(_ web: WebClient, _ cookie: String) throws -> Bool {
        try web.get("/", headers: ["Cookie": cookie]).text.contains("Signed in as")
    }

    /// The real daemon with its gallery on `127.0.0.1:PORT` (a free port), once it answers there.
    static func galleryOnLoopback(
        _ world: TestWorld, extra: [String] = [], launcher: [String] = []
    ) throws -> (RunningDaemon, port: Int) {
        let port = try LoopbackSocket.freePort()
        let daemon = try RunningDaemon(world: world, extra: ["--web-listen", "127.0.0.1:\(port)"] + extra, launcher: launcher)
        try daemon.waitUntil(seconds: 10, "the gallery to listen") {
            (try? WebClient(port: port).get("/api/v1/status").status) == 200
        }
        return (daemon, port)
    }

    /// A world with the web user `alice` and its gallery on the loopback.
    static func aliceOnLoopback() throws -> (TestWorld, RunningDaemon, port: Int) {
        let world = try TestWorld()
        let users = world.root.appendingPathComponent("web-users").path
        #expect(try WebAccessTests.ctl(["web-user", "add", "alice", "--users-file", users], input: WebAccessTests.password + "\n").status == 0)
        let (daemon, port) = try galleryOnLoopback(world, extra: ["--web-users-file", users])
        return (world, daemon, port)
    }

    @Test func aSessionEndsWhenThePasswordChangesOrTheUserIsRemovedAndAddedAgain() throws {
        let (world, daemon, web, users) = try WebAccessTests.world()
        defer { _ = daemon; world.remove() }
        let (first, _) = try WebAccessTests.signIn(web)
        let (second, _) = try WebAccessTests.signIn(web)
        #expect(try Self.signedIn(web, first))

        // The same password set again is a new hash: every session before it ends.
        let changed = try WebAccessTests.ctl(["web-user", "add", "alice", "--users-file", users], input: WebAccessTests.password + "\n")
        #expect(changed.status == 0, "\(changed.errors)")
        #expect(!(try Self.signedIn(web, first)))
        #expect(!(try Self.signedIn(web, second)))
        let rename = try web.request("POST", "/utensils/00000000-0000-0000-0000-000000000000/rename", headers: ["Cookie": second], body: Data())
        #expect(rename.status == 401)

        // A session opened after the change works, and ends with a remove and add.
        let (third, _) = try WebAccessTests.signIn(web)
        #expect(try Self.signedIn(web, third))
        #expect(try WebAccessTests.ctl(["web-user", "remove", "alice", "--users-file", users]).status == 0)
        #expect(try WebAccessTests.ctl(["web-user", "add", "alice", "--users-file", users], input: WebAccessTests.password + "\n").status == 0)
        #expect(!(try Self.signedIn(web, third)))
        let (fourth, _) = try WebAccessTests.signIn(web)
        #expect(try Self.signedIn(web, fourth))
    }

    @Test func parallelGuessesAreNotAllCheckedAndDoNotLockOutAnotherAddress() throws {
        let (world, daemon, port) = try Self.aliceOnLoopback()
        defer { _ = daemon; world.remove() }
        let attacker = WebClient(port: port, from: "127.0.0.2")
        let statuses = Statuses()
        DispatchQueue.concurrentPerform(iterations: 60) { index in
            let reply = try? attacker.request("POST", "/login", headers: Self.form, body: Data("name=alice&password=guess\(index)".utf8))
            statuses.add(reply?.status ?? 0)
        }
        let all = statuses.all
        // A guess whose password was checked is a 401; the rest were refused before bcrypt.
        #expect(all.filter { $0 == 401 }.count <= 3, "statuses: \(all.sorted())")
        #expect(all.filter { $0 == 429 }.count >= 50, "statuses: \(all.sorted())")
        #expect(!all.contains(303))

        // The right password from an address that did not fail gets in.
        let user = WebClient(port: port, from: "127.0.0.1")
        let started = Date()
        let reply = try user.request(
            "POST", "/login", headers: Self.form,
            body: Data("name=alice&password=\(WebAccessTests.password.replacingOccurrences(of: " ", with: "+"))".utf8))
        #expect(reply.status == 303, "\(reply.status): \(reply.text.prefix(300))")
        #expect(Date().timeIntervalSince(started) < 5)
        // The other address's success did not forgive the guessing one: its next guess is held
        // back, or (once its 1 s back-off has passed) checked and then held back for longer.
        let guess = { try attacker.request("POST", "/login", headers: Self.form, body: Data("name=alice&password=again".utf8)) }
        let next = try guess()
        if next.status != 429 {
            #expect(next.status == 401)
            let after = try guess()
            #expect(after.status == 429)
            #expect((after.headers["retry-after"].flatMap(Int.init) ?? 0) >= 2, "Retry-After: \(after.headers["retry-after"] ?? "none")")
        }
    }

    @Test func manyAnonymousSignInsDoNotSlowTheControlSocket() throws {
        let (world, daemon, port) = try Self.aliceOnLoopback()
        defer { _ = daemon; world.remove() }
        // 300 bad sign-ins in flight at once, from 150 addresses that have not failed yet.
        var connections: [Int32] = []
        defer { connections.forEach { close($0) } }
        for index in 0..<300 {
            let client = WebClient(port: port, from: "127.0.0.\(2 + index / 2)")
            let body = "name=alice&password=guess\(index)"
            let request = "POST /login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let fd = try client.connect()
            connections.append(fd)
            #expect(client.send(fd, Data(request.utf8)))
        }
        let control = world.root.appendingPathComponent("control.sock").path
        for _ in 0..<3 {
            let status = try Utensilctl.run(["status"], socket: control, timeout: 30)
            #expect(status.status == 0 && status.seconds < 1, "status took \(status.seconds) s: \(status.errors)")
        }
        // Most were refused at once rather than queued behind bcrypt.
        var statuses: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        for fd in connections {
            let count = recv(fd, &buffer, buffer.count, 0)
            statuses.append(count > 12 ? String(decoding: buffer[9..<12], as: UTF8.self) : "none")
        }
        let checked = statuses.filter { $0 == "401" }.count
        #expect(checked <= 60, "\(checked) of 300 had their password checked")
        #expect(statuses.filter { $0 == "429" }.count + checked == 300, "statuses: \(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")
    }
}

/// Statuses collected from parallel requests.
final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int] = []

    func add(_ status: Int) { lock.withLock { statuses.append(status) } }

    var all: [Int] { lock.withLock { statuses } }
}
