import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// A writer that rests with the file still open (a slow network copy, a camera app, a person
/// at a prompt) is waited for until it closes the file, however long it rests past
/// `settle_seconds`; files that are complete (moved in, hard-linked, closed) are not.
@Suite("utensild: writers that pause", .serialized, .tags(.spawnsProcesses))
struct PausedWriterTests {
    static let settleSeconds = 0.3

    @Test func aHalfWrittenPhotoStillOpenIsNotTakenUntilItsWriterClosesIt() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try DaemonTests.photos(world, count: 3, width: 1600, height: 1200)
        let inputs = try photos.map { try Data(contentsOf: $0) }
        let daemon = try RunningDaemon(world: world, extra: ["--settle-seconds", String(Self.settleSeconds)])

        // The writer: creates the file, writes half of the JPEG, and rests holding it open.
        let target = world.inbox.appendingPathComponent("Paused spoon.jpg")
        let fd = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0, "cannot create \(target.path): errno \(errno)")
        var closed = false
        defer { if !closed { close(fd) } }
        let half = inputs[0].count / 2
        try Self.write(fd, inputs[0][0..<half])

        // Complete files meanwhile are taken as usual: one renamed in, one hard-linked in.
        try DaemonTests.shell("mv \(DaemonTests.quoted(photos[1])) \(DaemonTests.quoted(world.inbox))/Ladle.jpg")
        #expect(link(photos[2].path, world.inbox.appendingPathComponent("Whisk.jpg").path) == 0)
        try daemon.waitForUtensils(2)

        // The daemon says it has settled and is held open: past the point where it used to be
        // taken half-written and rejected as corrupt-image.
        let held = "(1 still open by their writer)"
        try daemon.waitUntil(seconds: 30, "the STATUS= line to show the drop held open") {
            !world.files(in: world.rejected).isEmpty
                || daemon.notifications.messages.contains { $0.hasPrefix("STATUS=") && $0.contains(held) }
        }
        try #require(world.files(in: world.rejected).isEmpty, "the half-written drop was taken:\n\(daemon.log)")
        // A bounded negative check: for ten times settle_seconds more, nothing happens to it.
        let quietUntil = Date().addingTimeInterval(10 * Self.settleSeconds)
        while Date() < quietUntil {
            #expect(FileManager.default.fileExists(atPath: target.path))
            #expect(world.files(in: world.rejected).isEmpty)
            usleep(100_000)  // Polling until a deadline; nothing is awaited.
        }
        #expect(try daemon.waitForCatalog(seconds: 1, "still two utensils") { $0.count == 2 }.count == 2)

        // The writer finishes and closes: the whole photo becomes a utensil.
        try Self.write(fd, inputs[0][half...])
        #expect(close(fd) == 0)
        closed = true
        let rows = try daemon.waitForCatalog("the paused photo") { $0.count == 3 }
        #expect(rows.contains { $0.name == "Paused spoon" && $0.bytes == inputs[0].count })
        #expect(world.files(in: world.rejected).isEmpty)
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: inputs, inbox: .mustBeEmpty)
    }

    private static func write(_ fd: Int32, _ bytes: Data) throws {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("write returned \(written): errno \(errno)") }
    }
}
