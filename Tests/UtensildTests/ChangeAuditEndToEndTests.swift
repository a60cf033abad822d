import Foundation
import Testing
import UtensilTestSupport

/// Who did it: a change through the web is logged for the signed-in user, one through the
/// control socket for the peer's Unix user, with the same field (`CHANGED_BY`) and the door
/// it came through; an upload's `addedBy` is the signed-in user.
@Suite("who did it, against utensild", .serialized, .tags(.spawnsProcesses))
struct ChangeAuditEndToEndTests {
    /// The daemon's log lines holding `text`.
    static func lines(_ daemon: RunningDaemon, containing text: String) -> [Substring] {
        daemon.log.split(separator: "\n").filter { $0.contains(text) }
    }

    @Test func webChangesNameTheSignedInUserAndSocketChangesThePeer() throws {
        let (world, daemon, web, _) = try WebAccessTests.world()
        defer { world.remove() }
        let socket = world.root.appendingPathComponent("control.sock").path
        let id = try #require(world.files(in: world.thumbnails).first.map { String($0.prefix(36)) })
        let (cookie, _) = try WebAccessTests.signIn(web)
        let sameSite = ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie, "Sec-Fetch-Site": "same-origin"]
        #expect(try web.request("POST", "/utensils/\(id)/rename", headers: sameSite, body: Data("name=Fish+slice".utf8)).status == 303)
        #expect(try web.request("POST", "/utensils/\(id)/category", headers: sameSite, body: Data("category=Turners".utf8)).status == 303)

        let renamed = Self.lines(daemon, containing: "Renamed utensil Spatula to Fish slice")
        #expect(renamed.count == 1, "\(daemon.log)")
        for line in renamed + Self.lines(daemon, containing: "Set the category of utensil Fish slice") {
            #expect(line.contains("for web user alice"), "\(line)")
            #expect(line.contains("CHANGED_BY=alice") && line.contains("CHANGED_VIA=web"), "\(line)")
            #expect(!line.contains("PEER_UID"), "the web change names the daemon as a peer: \(line)")
        }

        // The same kind of change through utensilctl names the Unix user, uid and pid.
        let run = try UtensilctlEndToEndTests.ctl(["rename", id, "Turner"], socket: socket)
        #expect(run.status == 0, "\(run.errors)")
        let socketLine = try #require(Self.lines(daemon, containing: "Renamed utensil Fish slice to Turner").first)
        #expect(socketLine.contains("for root (uid 0 pid "), "\(socketLine)")
        #expect(socketLine.contains("CHANGED_BY=root") && socketLine.contains("CHANGED_VIA=control-socket"), "\(socketLine)")
        #expect(socketLine.contains("PEER_UID=0"), "\(socketLine)")

        // An upload is added by the signed-in user.
        let tongs = try TestImages.make([TestImages.jpeg(world.root.path + "/tongs", seed: 31)])[0]
        let upload = try WebAccessTests.upload(web, cookie: cookie, WebAccessTests.multipart([("Tongs.jpg", tongs)]),
                                               headers: ["Sec-Fetch-Site": "same-origin"])
        #expect(upload.status == 200, "\(upload.text)")
        let rows = try daemon.waitForCatalog("the upload") { $0.contains { $0.name == "Tongs" } }
        #expect(rows.first { $0.name == "Tongs" }?.addedBy == "alice")
        #expect(try daemon.terminate() == 0)
    }
}
