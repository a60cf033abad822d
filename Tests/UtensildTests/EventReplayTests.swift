import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilTestSupport

/// Events that resume, against the real daemon: every event carries a `seq` that only grows;
/// `events` with `since` first replays what a follower missed, then follows, none twice; the
/// gallery's event stream does the same for `Last-Event-ID` (a reconnecting browser) and
/// `?since=`; a `since` older than the log keeps is refused with a sentence saying what to do.
@Suite("event replay against utensild", .serialized, .tags(.spawnsProcesses))
struct EventReplayTests {
    @Test func aFollowerThatWasAwayGetsWhatItMissedOnceEach() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let web = world.root.appendingPathComponent("web.sock").path
        let socket = world.root.appendingPathComponent("control.sock").path
        let daemon = try RunningDaemon(world: world, extra: ["--web-listen", "unix:" + web])
        let live = try Self.subscribe(socket, since: nil)
        let photos = try TestImages.make((1...3).map { TestImages.jpeg(world.root.path + "/p\($0)", seed: 60 + $0) })
        try world.drop("Whisk.jpg", photos[0])
        try world.drop("Junk.jpg", Data("junk".utf8))
        try world.drop("Ladle.jpg", photos[1])
        let first = try Self.events(from: live, count: 3, log: { daemon.log })
        let seqs = first.map(\.seq)
        #expect(seqs == seqs.sorted() && Set(seqs).count == 3, "\(first)")

        // Away after the first: the other two, in order, then a new one live, nothing twice.
        let resumed = try Self.subscribe(socket, since: seqs[0])
        let missed = try Self.events(from: resumed, count: 2, log: { daemon.log })
        #expect(missed.map(\.seq) == Array(seqs[1...]))
        #expect(Set(missed.map(\.file)) == Set(first.dropFirst().map(\.file)))
        try world.drop("Spatula.jpg", photos[2])
        let next = try Self.events(from: resumed, count: 1, log: { daemon.log })
        #expect(next[0].file == "Spatula.jpg" && next[0].seq > seqs[2], "\(next)")
        #expect(try Self.events(from: live, count: 1, log: { daemon.log })[0].seq == next[0].seq)

        // The gallery: a reconnecting EventSource sends Last-Event-ID; a page may pass ?since=.
        let client = WebClient(socketPath: web)
        let afterSecond = try Self.stream(client, headers: ["Last-Event-ID": "\(seqs[1])"]) {
            $0.contains("id: \(next[0].seq)\n")
        }
        #expect(afterSecond.contains("id: \(seqs[2])\n") && !afterSecond.contains("id: \(seqs[1])\n"), "\(afterSecond)")
        let sinceFirst = try client.stream("/api/v1/events?since=\(seqs[0])") { $0.contains("id: \(next[0].seq)\n") }
        #expect(sinceFirst.contains("id: \(seqs[1])\n") && !sinceFirst.contains("id: \(seqs[0])\n"), "\(sinceFirst)")

        // Events no longer kept: said, with what to do, on both doors.
        try SQLiteCatalog(path: world.state.appendingPathComponent("utensils.sqlite").path).pruneEvents(keeping: 1)
        let tooOld = try RawControlClient(path: socket)
        #expect(tooOld.send(#"{"v":1,"command":"events","since":\#(seqs[0])}"# + "\n"))
        #expect(try #require(tooOld.readLine()).contains(#""subscribed":true"#))
        let refusal = try #require(tooOld.readLine())
        #expect(refusal.contains("not-found") && refusal.contains("no longer kept") && refusal.contains("--since \(next[0].seq - 1)"), "\(refusal)")
        let page = try client.stream("/api/v1/events?since=\(seqs[0])") { $0.contains("event: fell-behind") }
        #expect(page.contains("no longer kept"), "\(page)")
        // The page's script tells a stream to stop by the error's code in `data`.
        let data = try #require(page.components(separatedBy: "event: fell-behind\ndata: ").last?.components(separatedBy: "\n").first)
        let problem = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any], "\(page)")
        #expect(problem["code"] as? String == "not-found", "\(data)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }

    struct Seen: CustomStringConvertible {
        var seq: Int64
        var file: String
        var description: String { "\(seq) \(file)" }
    }

    static func subscribe(_ socket: String, since: Int64?) throws -> RawControlClient {
        let client = try RawControlClient(path: socket)
        let argument = since.map { #","since":\#($0)"# } ?? ""
        #expect(client.send(#"{"v":1,"command":"events"\#(argument)}"# + "\n"))
        let reply = try #require(client.readLine())
        #expect(reply.contains(#""subscribed":true"#), "\(reply)")
        return client
    }

    /// The next `count` event lines' seq and inbox file.
    static func events(from client: RawControlClient, count: Int, log: () -> String) throws -> [Seen] {
        var seen: [Seen] = []
        while seen.count < count {
            guard let line = client.readLine() else { throw TestFailure("the events ended after \(seen)\n\(log())") }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let event = try #require(object["event"] as? [String: Any], "\(line)")
            let seq = try #require((event["seq"] as? NSNumber)?.int64Value, "no seq in \(line)")
            seen.append(Seen(seq: seq, file: event["inboxFile"] as? String ?? ""))
        }
        return seen
    }

    /// `GET /api/v1/events` with `headers`, read until `done` holds.
    static func stream(_ client: WebClient, headers: [String: String], until done: (String) -> Bool) throws -> String {
        let fd = try client.connect()
        defer { close(fd) }
        var head = "GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        _ = client.send(fd, Data((head + "\r\n").utf8))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        try Poll.until(seconds: 30, "the awaited events", detail: { String(decoding: received, as: UTF8.self) }) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { received.append(contentsOf: buffer[0..<count]) }
            return done(String(decoding: received, as: UTF8.self))
        }
        return String(decoding: received, as: UTF8.self)
    }
}
