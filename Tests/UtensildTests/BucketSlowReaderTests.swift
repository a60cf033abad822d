import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// Clients of the real daemon's gallery that ask for a large original kept in a bucket and then
/// never read it (a phone gone to sleep, a hostile client): the original streams through one
/// GET each (`S3BodyPump`), which must push back rather than gather the object — measured by a
/// relay between the daemon and SeaweedFS that counts what the daemon took from the bucket —
/// so the daemon's memory stays bounded; other requests (the health and readiness probes, other
/// utensils' files, a new drop) are served meanwhile; and each stalled GET's bucket connection
/// is let go once nothing moved for the stall limit, while its client still hangs on.
@Suite("Stalled readers of a bucket's originals", .serialized, .tags(.spawnsProcesses))
struct BucketSlowReaderTests {
    /// The large original's size: far more than any buffer on the way may hold.
    static let size = 48 << 20
    /// How many clients stall at once: more than the bucket client's pool of connections (8).
    static let stalled = 10

    @Test func stalledReadersPushBackAndOthersAreServed() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let relay = try CountingRelay(upstreamPort: server.s3Port)
        defer { relay.stop() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.path + "/big", width: 320, height: 240, seed: 71),
            TestImages.jpeg(world.root.path + "/other", width: 320, height: 240, seed: 72),
            TestImages.jpeg(world.root.path + "/later", width: 320, height: 240, seed: 73),
        ])
        try world.drop("Big.jpg", images[0])
        try world.drop("Other.jpg", images[1])
        let port = try LoopbackSocket.freePort()
        let daemon = try RunningDaemon(
            world: world,
            extra: site.flags(endpoint: "http://127.0.0.1:\(relay.port)", keys: site.keys)
                + ["--web-listen", "127.0.0.1:\(port)"])
        let rows = try daemon.waitForCatalog("two utensils") { $0.count == 2 }
        let big = try #require(rows.first { $0.name == "Big" }), other = try #require(rows.first { $0.name == "Other" })
        let web = WebClient(port: port)
        try daemon.waitUntil(seconds: 10, "the gallery to listen") { (try? web.get("/healthz").status) == 200 }

        // Big's original becomes 48 MiB in the bucket (put past the relay): what a slow reader asks for.
        let blob = (0..<Self.size).map { _ in UInt8.random(in: 0...255) }
        try await server.client().put("site/originals/\(big.id.uuidString).jpg", blob)
        let before = try ProcessMemory.of(daemon.process.processIdentifier)
        let linksBefore = relay.all.count

        var clients: [Int32] = []
        defer { for fd in clients { close(fd) } }
        for _ in 0..<Self.stalled {
            let fd = try LoopbackSocket.connected(port: port, from: "127.0.0.5", receiveBuffer: 4096)
            let head = "GET /originals/\(big.id.uuidString).jpg HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            #expect(send(fd, head, head.utf8.count, Int32(MSG_NOSIGNAL)) == head.utf8.count)
            clients.append(fd)
        }
        // The original's GETs: the relay's connections that carried more than a small answer.
        let streams = { relay.all.dropFirst(linksBefore).filter { $0.handed > 1 << 20 } }
        try daemon.waitUntil(seconds: 60, "every stalled reader's GET to push back on the bucket") {
            let now = streams()
            return (now.count == Self.stalled && now.allSatisfy(\.blocked)) || now.contains { $0.handed >= Self.size }
        }
        let pushedBack = streams()
        let memory = try ProcessMemory.of(daemon.process.processIdentifier)
        for stream in pushedBack {
            #expect(stream.handed < Self.size / 2, "the daemon took \(stream.handed) bytes of \(Self.size) for a client that read 4 KiB")
        }
        let heldMiB = memory.residentMiB - before.residentMiB
        #expect(heldMiB < Double(Self.size >> 20), "\(Self.stalled) stalled readers of a 48 MiB original: before \(before), now \(memory)")

        // Meanwhile everything else is served: the probes, another utensil's files, a new drop.
        #expect(try web.get("/healthz").status == 200)
        let ready = try web.get("/readyz")
        #expect(ready.status == 200, "the bucket answers, whatever the stalled readers hold: \(ready.text)")
        let thumbnail = try web.get("/thumbnails/\(other.id.uuidString).jpeg")
        let thumbnailBytes = Data(try await server.client().get("site/thumbnails/\(other.id.uuidString).jpeg"))
        #expect(thumbnail.status == 200 && thumbnail.body == thumbnailBytes)
        let original = try web.get("/originals/\(other.id.uuidString).jpg")
        #expect(original.status == 200 && original.body == images[1])
        try world.drop("Later.jpg", images[2])
        _ = try daemon.waitForCatalog(seconds: 60, "the drop made meanwhile") { $0.count == 3 }

        // Nothing moved for the stall limit: each GET's bucket connection is let go, though its
        // client still holds the gallery's connection.
        try daemon.waitUntil(seconds: 120, "the stalled GETs' bucket connections to be closed") {
            streams().allSatisfy(\.clientClosed)
        }
        #expect(streams().count == Self.stalled)
        #expect(daemon.process.isRunning)
        for fd in clients { close(fd) }
        clients = []
        #expect(try web.get("/originals/\(other.id.uuidString).jpg").body == images[1])
        #expect(try daemon.terminate() == 0)
    }
}
