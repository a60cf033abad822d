import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilTestSupport

/// The real daemon stays inside its folders: a group member who swaps watched sub-folders
/// for symbolic links while their drops wait to settle makes the daemon refuse them (and say
/// so), never read, move or delete what lies behind the links.
@Suite("Confinement, end to end", .serialized, .tags(.spawnsProcesses))
struct ConfinementDaemonTests {
    @Test func subFoldersSwappedForLinksWhileTheirDropsWaitAreNeverFollowed() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 1),
            TestImages.jpeg(world.root.appendingPathComponent("b").path, seed: 2),
            TestImages.jpeg(world.root.appendingPathComponent("c").path, seed: 3),
        ])
        let canary = try OutsideCanary(
            in: world.root, files: ["Ladle.jpg": images[2], "list.txt": Data("private notes".utf8)])
        // Long enough a settle time that the swaps below surely happen while the drops wait.
        let daemon = try RunningDaemon(world: world, extra: ["--settle-seconds", "4"])
        let socket = world.root.appendingPathComponent("control.sock").path
        try world.drop("Sub/Whisk.jpg", images[0])
        try world.drop("Sub/notes.txt", Data("mine".utf8))
        try world.drop("Other/Ladle.jpg", images[1])
        try world.drop("Other/list.txt", Data("mine too".utf8))
        try daemon.waitUntil(seconds: 30, "the drops to be queued") {
            (try? Utensilctl.run(["status", "--json"], socket: socket).json?["queued"] as? Int) == 4
        }

        // Sub: the very same files, moved out of the inbox and reached through a link.
        let sub = world.inbox.appendingPathComponent("Sub")
        let movedOut = world.root.appendingPathComponent("moved-out")
        try FileManager.default.moveItem(at: sub, to: movedOut)
        let movedCanary = try OutsideCanary(existing: movedOut)
        #expect(symlink(movedOut.path, sub.path) == 0)
        // Other: a link to a folder of files of the same names the daemon must never read.
        let other = world.inbox.appendingPathComponent("Other")
        try FileManager.default.moveItem(at: other, to: world.root.appendingPathComponent("other-out"))
        #expect(symlink(canary.folder.path, other.path) == 0)

        // The links themselves are drops, rejected as not-a-regular-file (moved, not followed).
        try daemon.waitUntil(seconds: 60, "the links to leave the inbox") { world.files(in: world.inbox).isEmpty }
        try daemon.waitUntil(seconds: 30, "every refusal in the log") {
            ["Sub/Whisk.jpg", "Sub/notes.txt", "Other/Ladle.jpg", "Other/list.txt"].allSatisfy {
                daemon.log.contains("Left \($0) alone")
            }
        }
        #expect(try daemon.terminate() == 0)

        canary.verifyUntouched()
        movedCanary.verifyUntouched()
        #expect(try SQLiteCatalog(path: world.settings().catalogPath).count() == 0)
        #expect(world.files(in: world.rejected) == ["Other", "Other.error.json", "Sub", "Sub.error.json"])
        #expect(try world.sidecar(for: "Sub")["reason"] as? String == RejectionReason.notARegularFile.rawValue)
        // A rejected link reads as nothing: the invariant counts each as an empty input.
        try InvariantChecker(world: world).verify(inputs: [Data(), Data()], inbox: .mustBeEmpty)
    }

    @Test func aFolderTreeDeeperThanPathMaxMovedInIsIngested() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let bytes = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 5)])[0]
        let daemon = try RunningDaemon(world: world)
        // 40 levels of 200-byte names (8 KB of path), made beside the inbox and moved in at once.
        let staging = world.root.appendingPathComponent("deep")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try DeepFolder.make(
            in: staging.path, levels: 40, component: String(repeating: "d", count: 200), file: "Deep whisk.jpg", bytes: bytes)
        // Into a category folder: a 200-character folder name could not be a category.
        let top = String(repeating: "d", count: 200)
        #expect(mkdir(world.inbox.path + "/Deep", 0o755) == 0)
        #expect(rename(staging.appendingPathComponent(top).path, world.inbox.path + "/Deep/" + top) == 0)
        try daemon.waitForCatalog("the deep photo") { $0.contains { $0.name == "Deep whisk" && $0.category == "Deep" } }
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: [bytes])
    }

    /// Folders already in the inbox at start, deeper than 32 levels and than `PATH_MAX`, are
    /// watched (or listed, in poll mode) like any other: a drop written into them later is
    /// ingested or rejected at once, not at the next rescan (an hour away here).
    @Test(arguments: ["inotify", "poll"])
    func dropsInFoldersOfAnyDepthAreTakenAsTheyCome(watch: String) throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 6),
            TestImages.jpeg(world.root.appendingPathComponent("b").path, seed: 7),
        ])
        let notes = Data("not a photo".utf8)
        // 40 levels of "d" (beyond the old limit of 32) in the category folder "Tall", and 25
        // levels of 200-byte names (5 KB of path, more than PATH_MAX) in "Long".
        let tall = world.inbox.path + "/Tall", long = world.inbox.path + "/Long"
        let longName = String(repeating: "l", count: 200)
        #expect(mkdir(tall, 0o755) == 0 && mkdir(long, 0o755) == 0)
        try DeepFolder.makeFolders(in: tall, levels: 40, component: "d")
        try DeepFolder.makeFolders(in: long, levels: 25, component: longName)
        let daemon = try RunningDaemon(world: world, extra: ["--watch", watch, "--rescan-seconds", "3600"])

        try DeepFolder.write(images[0], as: "Tall whisk.jpg", in: tall, levels: 40, component: "d")
        let longPath = try DeepFolder.write(images[1], as: "Long ladle.jpg", in: long, levels: 25, component: longName)
        #expect(longPath.utf8.count > Int(PATH_MAX))
        let notesPath = try DeepFolder.write(notes, as: "notes.txt", in: long, levels: 25, component: longName)
        try daemon.waitForCatalog(seconds: 30, "both deep photos") { records in
            records.contains { $0.name == "Tall whisk" && $0.category == "Tall" }
                && records.contains { $0.name == "Long ladle" && $0.category == "Long" }
        }
        try daemon.waitUntil(seconds: 30, "the deep note to be rejected") { world.files(in: world.rejected).contains("notes.txt") }
        #expect(try world.sidecar(for: "notes.txt")["reason"] as? String == RejectionReason.unsupportedType.rawValue)
        #expect(try world.sidecar(for: "notes.txt")["inboxPath"] as? String == "Long/" + notesPath)
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: images + [notes], inbox: .mustBeEmpty)
    }

    /// Where inotify's watch limit runs out, the daemon watches what it can, says which
    /// folder it could not watch and what to raise (in the log with its `MESSAGE_ID`, and in
    /// `status`), and the rescans find the drops in the rest. The limit is made real, and
    /// small, in a user namespace of the daemon's own (`/proc/sys/user/max_inotify_watches`).
    @Test func aWatchLimitLeavesFoldersToTheRescansAndSaysSo() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let folders = (0..<12).map { String(format: "Shelf %02d", $0) }
        for folder in folders { #expect(mkdir(world.inbox.path + "/" + folder, 0o755) == 0) }
        let images = try TestImages.make(folders.indices.map {
            TestImages.jpeg(world.root.appendingPathComponent("photo\($0)").path, seed: 20 + $0)
        })
        // The inbox and four shelves can be watched; the other eight cannot.
        let limited = ["/usr/bin/unshare", "--user", "--map-root-user", "--", "/bin/sh", "-c",
                       "echo 5 > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\""]
        let daemon = try RunningDaemon(world: world, extra: ["--rescan-seconds", "2"], launcher: limited)
        for (folder, bytes) in zip(folders, images) { try world.drop("\(folder)/Photo of \(folder).jpg", bytes) }
        try daemon.waitForUtensils(folders.count, seconds: 60)
        #expect(daemon.log.contains("Part of the inbox is not watched: inotify watch limit reached while watching \(world.inbox.path)/Shelf 04"))
        #expect(daemon.log.contains("MESSAGE_ID=dc30006a3e914558bafb92863fbe1984"))
        let status = try Utensilctl.run(["status", "--json"], socket: world.root.appendingPathComponent("control.sock").path)
        #expect((status.json?["lastError"] as? String)?.contains("part of the inbox is not watched") == true)
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: images, inbox: .mustBeEmpty)
    }
}
