import Foundation
import Glibc
import Testing
import UtensilCore
import UtensilTestSupport

/// What a member of the group can put into `rejected/` (a folder it may write): start-up and
/// every command survive it, and nothing planted is followed, read whole or moved by mistake.
@Suite("Files planted in rejected/", .serialized, .tags(.spawnsProcesses))
struct PlantedFilesTests {
    static func ctl(_ arguments: [String], _ world: TestWorld) throws -> UtensilctlEndToEndTests.Run {
        try UtensilctlEndToEndTests.ctl(arguments, socket: world.root.appendingPathComponent("control.sock").path)
    }

    static func plant(_ world: TestWorld, _ name: [UInt8], _ make: ([CChar]) -> Int32) throws {
        let path = HostileEntries.path(world.rejected.path, name)
        guard make(path) == 0 else {
            throw TestFailure("cannot plant \(String(decoding: name, as: UTF8.self)): \(String(cString: strerror(errno)))")
        }
    }

    @Test func foldersNamedLikeTemporariesOrSidecarsDoNotStopTheStart() throws {
        let world = try TestWorld()
        defer { world.remove() }
        try FileManager.default.createDirectory(at: world.rejected, withIntermediateDirectories: true)
        let planted: [(String, ([CChar]) -> Int32)] = [
            (".tmp-planted", { mkdir($0, 0o755) }),
            ("Lonely.jpg.error.json", { mkdir($0, 0o755) }),
            ("Pipe.jpg.error.json", { mkfifo($0, 0o644) }),
            (".tmp-link", { symlink("/etc/passwd", $0) }),
            ("Link.jpg.error.json", { symlink("/etc/passwd", $0) }),
        ]
        for (name, make) in planted { try Self.plant(world, Array(name.utf8), make) }

        let daemon = try RunningDaemon(world: world)
        #expect(try Self.ctl(["status"], world).status == 0)
        let rejected = try Self.ctl(["rejected", "--json"], world)
        #expect(rejected.status == 0, "\(rejected.errors)")
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/p", width: 64, height: 48, seed: 61)])[0]
        try world.drop("After planting.jpg", photo)
        try daemon.waitForUtensils(1)
        #expect(try daemon.terminate() == 0)
        #expect(daemon.log.contains("is not a regular file"), "the skipped entries are logged\n\(daemon.log)")
        for (name, _) in planted {
            #expect(HostileEntries.lstatOf(world.rejected.path, Array(name.utf8)) != nil, "\(name) was removed")
        }
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
        try Self.removePlanted(world, planted.map(\.0))
        try InvariantChecker(world: world).verify(inputs: [photo])
    }

    @Test func aHugeOrLinkedSidecarIsNotReadWhole() throws {
        let world = try TestWorld()
        defer { world.remove() }
        try world.drop("Broken.jpg", Data("not a photo".utf8))
        try world.drop("Shadowed.jpg", Data("not a photo either".utf8))
        let daemon = try RunningDaemon(world: world)
        try daemon.waitUntil("both rejections") {
            world.files(in: world.rejected).filter { $0.hasSuffix(".error.json") }.count == 2
        }
        // A sparse 1.2 GB sidecar, and a sidecar that is a link to a file nobody may read.
        let huge = world.rejected.appendingPathComponent("Broken.jpg.error.json").path
        #expect(truncate(huge, 1_200_000_000) == 0)
        let linked = world.rejected.appendingPathComponent("Shadowed.jpg.error.json").path
        #expect(unlink(linked) == 0 && symlink("/etc/shadow", linked) == 0)

        let before = try ProcessMemory.of(daemon.process.processIdentifier)
        let listing = try Self.ctl(["rejected", "--json"], world)
        let after = try ProcessMemory.of(daemon.process.processIdentifier)
        #expect(listing.status == 0, "\(listing.errors)")
        let files = try #require(try JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [[String: Any]])
        #expect(Set(files.compactMap { $0["file"] as? String }) == ["Broken.jpg", "Shadowed.jpg"])
        #expect(files.allSatisfy { $0["reason"] as? String == "unknown" }, "\(files)")
        #expect(after.peakResidentKiB - before.peakResidentKiB < 100 * 1024, "before \(before), after \(after)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func namesThatAreNotUTF8AreListedAndRetriedInTheirEscapedForm() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let latin1 = Array("Caf".utf8) + [0xE9] + Array(".jpg".utf8)
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: world.inbox.path + "/staged"))
        #expect(rename(world.inbox.path + "/staged", HostileEntries.path(world.inbox.path, latin1)) == 0)
        try world.drop("Back\\slash.jpg", Data("junk".utf8))
        let daemon = try RunningDaemon(world: world)
        try daemon.waitUntil("both rejections") {
            world.files(in: world.rejected).filter { $0.hasSuffix(".error.json") }.count == 2
        }

        let listing = try Self.ctl(["rejected", "--json"], world)
        let files = try #require(try JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: files.map { ($0["file"] as? String ?? "", $0["reason"] as? String ?? "") })
        #expect(byName == [#"Caf\xE9.jpg"#: "name-not-utf8", #"Back\\slash.jpg"#: "corrupt-image"], "\(listing.output)")
        let table = try Self.ctl(["rejected"], world)
        #expect(table.output.contains(#"Caf\xE9.jpg"#), "\(table.output)")

        // By name: the escaped form moves exactly that file back (and it is rejected again).
        let one = try Self.ctl(["retry", #"Caf\xE9.jpg"#, "--json"], world)
        #expect(one.status == 0, "\(one.errors)")
        #expect(one.output.contains(#"Caf\\xE9.jpg"#), "\(one.output)")  // JSON doubles the backslash
        try daemon.waitUntil("the retried file to be rejected again") {
            HostileEntries.exists(world.rejected.path, latin1) && HostileEntries.exists(world.rejected.path, latin1 + Array(".error.json".utf8))
        }
        // All: both move.
        let all = try Self.ctl(["retry", "--all", "--json"], world)
        #expect(all.status == 0, "\(all.errors)")
        let moved = try #require(try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as? [String])
        #expect(Set(moved) == [#"Caf\xE9.jpg"#, #"Back\\slash.jpg"#])
        try daemon.waitUntil("both to be rejected again") {
            world.files(in: world.rejected).filter { $0.hasSuffix(".error.json") }.count == 2 && world.files(in: world.inbox).isEmpty
        }
        #expect(try daemon.terminate() == 0)
        // (The invariant check reads rejected/ through Foundation, which cannot name these bytes.)
        for name in [latin1, Array("Back\\slash.jpg".utf8)] {
            #expect(HostileEntries.exists(world.rejected.path, name) && HostileEntries.exists(world.rejected.path, name + Array(".error.json".utf8)))
        }
    }

    @Test func retryAllMovesWhatItCanAndSaysWhatItCouldNot() throws {
        let world = try TestWorld()
        defer { world.remove() }
        try world.drop("Broken.jpg", Data("junk".utf8))
        let daemon = try RunningDaemon(world: world)
        try daemon.waitUntil("the rejection") { world.files(in: world.rejected).contains("Broken.jpg.error.json") }
        // A rejected file whose original name is taken in the inbox (by a hidden file the
        // daemon leaves alone) and too long to take a ` (2)`: it cannot go back.
        let hidden = "." + String(repeating: "s", count: 250) + ".jpg"
        try Data("hidden".utf8).write(to: world.inbox.appendingPathComponent(hidden))
        try Data("stuck".utf8).write(to: world.rejected.appendingPathComponent("Stuck.jpg"))
        let sidecar = RejectionSidecar(file: hidden, reason: .corruptImage, message: "Planted.", rejectedAt: Date(),
                                       bytes: 5, rejectedAs: "Stuck.jpg", inboxPath: hidden)
        try sidecar.encoded().write(to: world.rejected.appendingPathComponent("Stuck.jpg.error.json"))

        let all = try Self.ctl(["retry", "--all"], world)
        #expect(all.status == 1)
        #expect(all.output.contains("Broken.jpg"), "\(all.output)")
        #expect(all.errors.contains("Stuck.jpg") && all.errors.contains("could not be moved back"), "\(all.errors)")
        #expect(world.files(in: world.rejected).contains("Stuck.jpg"))
        try daemon.waitUntil("Broken.jpg to be rejected again") {
            world.files(in: world.rejected).contains("Broken.jpg.error.json") && !world.files(in: world.inbox).contains("Broken.jpg")
        }
        #expect(try daemon.terminate() == 0)
    }

    @Test func retryNamesWithNulOrSlashAreRefused() throws {
        let world = try TestWorld()
        defer { world.remove() }
        try world.drop("Broken.jpg", Data("junk".utf8))
        let daemon = try RunningDaemon(world: world)
        try daemon.waitUntil("the rejection") { world.files(in: world.rejected).contains("Broken.jpg.error.json") }
        let socket = world.root.appendingPathComponent("control.sock").path
        for file in [#"Broken.jpg.error.json\u0000"#, #"Broken.jpg.error.json\u0000.jpg"#, "../rejected/Broken.jpg", #"Broken.jpg.error.json\\x00"#] {
            let reply = try RawControlClient(path: socket).ask(#"{"v":1,"command":"retry","file":"\#(file)"}"#)
            #expect(reply["ok"] as? Bool == false, "\(file): \(reply)")
            #expect((reply["error"] as? [String: Any])?["code"] as? String == "bad-request", "\(file): \(reply)")
        }
        #expect(Set(world.files(in: world.rejected)) == ["Broken.jpg", "Broken.jpg.error.json"])
        #expect(world.files(in: world.inbox).isEmpty)
        #expect(try daemon.terminate() == 0)
    }

    static func removePlanted(_ world: TestWorld, _ names: [String]) throws {
        for name in names {
            let path = world.rejected.appendingPathComponent(name).path
            if rmdir(path) != 0 { unlink(path) }
        }
    }
}
