import Foundation
import Testing
import UtensilTestSupport

/// utensild (the real binary) on a real SeaweedFS that is stopped in the middle of a burst of
/// drops: nothing is rejected for it, `status` says since when the storage does not answer,
/// the gallery's file routes answer 503, the journal says so once and once that it answers
/// again, and every drop goes in as soon as the server is back.
@Suite("A bucket that stops answering", .serialized, .tags(.spawnsProcesses))
struct BucketStorageOutageTests {
    @Test func dropsWaitForTheBucketAndGoInOnceItAnswers() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let count = 10
        let images = try TestImages.make((0..<count).map {
            TestImages.png(world.root.path + "/b\($0)", width: 80, height: 60, seed: 600 + $0)
        })
        let web = world.root.appendingPathComponent("web.sock").path
        let daemon = try RunningDaemon(
            world: world, extra: site.flags + ["--web-listen", "unix:" + web])
        let socket = world.root.appendingPathComponent("control.sock").path
        let storageOf = { () -> [String: Any] in
            (try? Utensilctl.run(["status", "--json"], socket: socket).json)?["storage"] as? [String: Any] ?? [:]
        }
        #expect(storageOf()["state"] as? String == "ok")

        for index in 0..<4 { try world.drop("Before \(index).png", images[index]) }
        let first = try #require(try daemon.waitForCatalog(seconds: 60, "the first drop of the burst") { !$0.isEmpty }.first)
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: web) }
        let gallery = WebClient(socketPath: web)
        let thumbnail = "/thumbnails/\(first.id.uuidString).jpeg"
        try daemon.waitUntil("the gallery to serve the first thumbnail") { (try? gallery.get(thumbnail))?.status == 200 }
        server.stop()
        for index in 4..<count { try world.drop("During \(index).png", images[index]) }

        try daemon.waitUntil(seconds: 180, "the journal to say the storage does not answer") {
            daemon.log.contains("The storage does not answer")
        }
        var storage: [String: Any] = [:]
        try daemon.waitUntil(seconds: 30, "status to say the storage is unreachable") {
            storage = storageOf()
            return storage["state"] as? String == "unreachable"
        }
        #expect(storage["since"] is String && storage["detail"] is String, "\(storage)")
        let text = try Utensilctl.run(["status"], socket: socket).output
        #expect(text.contains("unreachable since"), "\(text)")
        #expect(world.files(in: world.rejected).isEmpty, "a storage outage rejects nothing")
        // A preview: a thumbnail read in the last seconds may still be served from memory.
        let unavailable = try gallery.get("/previews/\(first.id.uuidString).jpeg")
        #expect(unavailable.status == 503 && unavailable.text.contains("storage does not answer"), "\(unavailable.text)")

        try await server.start()
        let utensils = try daemon.waitForCatalog(seconds: 60, "every drop once the storage answers again") { $0.count == count }
        #expect(utensils.count == count)
        try daemon.waitUntil("the inbox to be empty") { world.files(in: world.inbox).isEmpty }
        #expect(world.files(in: world.rejected).isEmpty)
        let log = daemon.log
        #expect(log.components(separatedBy: "The storage does not answer").count == 2, "said once:\n\(log)")
        #expect(log.components(separatedBy: "The storage answers again").count == 2, "said once:\n\(log)")
        try daemon.waitUntil(seconds: 30, "status to say the storage answers") { storageOf()["state"] as? String == "ok" }
        #expect(try gallery.get(thumbnail).status == 200)
        #expect(try daemon.terminate() == 0)
    }
}
