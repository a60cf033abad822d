import Foundation
import Glibc
import Testing
import UtensilStore
import UtensilTestSupport

extension JournaldEndToEndTests {
    /// The real daemon logging natively to a real journald: a good and a bad drop are each one
    /// entry, with the contract's MESSAGE_ID and fields.
    @Test func theDaemonLogsEachIngestAndRejectionToTheJournal() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let tag = UUID().uuidString.prefix(8)
        let good = "Journal knives \(tag)/Journal spoon \(tag).jpg"
        let bad = "Journal junk \(tag).jpg"
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/a")])[0]
        try await Journald.whileRunning {
            let daemon = try RunningDaemon(world: world, environment: ["SYSTEMD_LOG_TARGET": "journal"])
            try world.drop(good, image)
            try world.drop(bad, Data("not a photo".utf8))
            try daemon.waitForUtensils(1)
            try daemon.waitUntil("the bad drop to be rejected") { world.files(in: world.rejected).contains(bad) }

            let ingested = try await Self.entry(matching: "INBOX_FILE=\(good)")
            #expect(ingested["MESSAGE_ID"] == ["092aa93d51e24d3a8839ac8796bda321"])
            #expect(ingested["UTENSIL_NAME"] == ["Journal spoon \(tag)"])
            #expect(ingested["UTENSIL_ID"]?.first?.count == 36)
            #expect(ingested["UTENSIL_CATEGORY"] == ["Journal knives \(tag)"])
            #expect(ingested["UTENSIL_ADDED_BY"] == [UserName.of(uid: getuid())])
            #expect(ingested["SYSLOG_IDENTIFIER"] == ["utensild"])
            #expect(ingested["PRIORITY"] == ["6"])
            #expect(ingested["DURATION_MS"] != nil)

            let rejected = try await Self.entry(matching: "INBOX_FILE=\(bad)")
            #expect(rejected["MESSAGE_ID"] == ["d1c7c9574b2e4974941b108ff0f349c2"])
            #expect(rejected["REJECT_REASON"] == ["corrupt-image"])
            #expect(rejected["PRIORITY"] == ["5"])
            #expect(try daemon.terminate() == 0)
        }
    }
}
