import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// The catalog's features against the real daemon and the real `utensilctl`: categories
/// from inbox folders, who added a utensil, the natural name order.
@Suite("Catalog features against utensild", .serialized, .tags(.spawnsProcesses))
struct CatalogFeaturesEndToEndTests {
    typealias Run = UtensilctlEndToEndTests.Run

    func ctl(_ arguments: [String], _ socket: String, user: UInt32? = nil) throws -> Run {
        try UtensilctlEndToEndTests.ctl(arguments, socket: socket, user: user)
    }

    /// The JSON array or object `--json` printed.
    func json(_ run: Run) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(run.output.utf8))
    }

    func utensils(_ run: Run) -> [[String: Any]] {
        ((json(run) as? [String: Any])?["utensils"] as? [[String: Any]]) ?? []
    }

    @Test func categoriesComeFromFoldersAtAnyDepthAndFromADraggedInFolder() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make((1...7).map { TestImages.jpeg(root + "/i\($0)", width: 200, height: 150, seed: $0) })
        try world.drop("Knives/Chef/Japanese/Santoku.jpg", images[0])
        try world.drop("knives/Paring.jpg", images[1])
        try world.drop("Whisks/Balloon.jpg", images[2])
        try world.drop("Spoon.jpg", images[3])
        let tooLong = String(repeating: "x", count: 101)
        try world.drop(tooLong + "/Fork.jpg", images[4])
        try world.drop("Knives/Broken.jpg", Data("junk".utf8))
        let daemon = try RunningDaemon(world: world)
        let socket = world.root.appendingPathComponent("control.sock").path
        try daemon.waitForUtensils(4)
        try daemon.waitUntil("the two rejections") {
            world.files(in: world.rejected).filter { $0.hasSuffix(".error.json") }.count == 2
        }

        // A folder dragged into the inbox whole: its photos take its name.
        let outside = world.root.appendingPathComponent("Ladles")
        try FileManager.default.createDirectory(at: outside.appendingPathComponent("Soup"), withIntermediateDirectories: true)
        try images[5].write(to: outside.appendingPathComponent("Soup/Soup ladle.jpg"))
        #expect(rename(outside.path, world.inbox.appendingPathComponent("Ladles").path) == 0)
        try daemon.waitForUtensils(5)

        func category(of name: String) throws -> Any? {
            let shown = try #require(json(try ctl(["show", name, "--json"], socket)) as? [String: Any])
            return shown["category"]
        }
        #expect(try category(of: "Santoku") as? String == "Knives")
        #expect(try category(of: "Paring") as? String == "knives")
        #expect(try category(of: "Soup ladle") as? String == "Ladles")
        #expect(try category(of: "Spoon") is NSNull, "a drop directly in the inbox has no category")

        // Case-insensitive matching, combined with search and every sort.
        let knives = try ctl(["list", "--category", "KNIVES", "--sort", "name", "--json"], socket)
        #expect(utensils(knives).map { $0["name"] as? String } == ["Paring", "Santoku"])
        let searched = try ctl(["list", "--category", "knives", "--search", "toku", "--json"], socket)
        #expect(utensils(searched).map { $0["name"] as? String } == ["Santoku"])
        let firstPage = try ctl(["list", "--category", "Knives", "--sort", "-created", "--limit", "1", "--json"], socket)
        let cursor = try #require((json(firstPage) as? [String: Any])?["next"] as? String)
        let secondPage = try ctl(["list", "--category", "Knives", "--sort", "-created", "--limit", "1", "--after", cursor, "--json"], socket)
        #expect(Set((utensils(firstPage) + utensils(secondPage)).compactMap { $0["name"] as? String }) == ["Paring", "Santoku"])
        let human = try ctl(["list", "--category", "Knives", "--limit", "1"], socket)
        #expect(human.output.contains("--category Knives"), "the next-page hint keeps the filter: \(human.output)")

        let categories = try #require(json(try ctl(["categories", "--json"], socket)) as? [[String: Any]])
        #expect(categories.map { ($0["name"] as? String)?.lowercased() } == ["knives", "ladles", "whisks"])
        #expect(categories.map { $0["count"] as? Int } == [2, 1, 1])
        let table = try ctl(["categories"], socket)
        #expect(table.status == 0 && table.output.contains("Ladles") && table.output.contains("UTENSILS"))

        // Folders stay once their photos are ingested.
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: world.inbox.path + "/Knives/Chef/Japanese", isDirectory: &isFolder) && isFolder.boolValue)
        #expect(FileManager.default.fileExists(atPath: world.inbox.path + "/Ladles/Soup", isDirectory: &isFolder) && isFolder.boolValue)

        // A folder whose name breaks the name rules rejects its drops, naming the folder.
        let invalid = try world.sidecar(for: "Fork.jpg")
        #expect(invalid["reason"] as? String == "invalid-category")
        #expect((invalid["message"] as? String)?.contains(tooLong) == true)
        #expect((invalid["message"] as? String)?.contains("rename the folder") == true)

        // Retry puts a fixed file back into the folder it came from, so it keeps its category.
        try images[6].write(to: world.rejected.appendingPathComponent("Broken.jpg"))
        let retried = try ctl(["retry", "Broken.jpg", "--json"], socket)
        #expect(json(retried) as? [String] == ["Knives/Broken.jpg"], "\(retried.output) \(retried.errors)")
        try daemon.waitForUtensils(6)
        #expect(try category(of: "Broken") as? String == "Knives")

        // set-category changes one, and says when.
        let spoonID = try #require((json(try ctl(["show", "Spoon", "--json"], socket)) as? [String: Any])?["id"] as? String)
        let moved = try #require(json(try ctl(["set-category", spoonID, "whisks", "--json"], socket)) as? [String: Any])
        #expect(moved["category"] as? String == "whisks")
        #expect(moved["updatedAt"] is String)
        #expect(try ctl(["list", "--category", "Whisks", "--json"], socket).output.contains("Spoon"))
        #expect(try ctl(["set-category", spoonID, "Bad\nname"], socket).status == 1)
        #expect(try ctl(["set-category", spoonID], socket).status == 64)
        let cleared = try ctl(["set-category", spoonID, "--none"], socket)
        #expect(cleared.status == 0 && cleared.output.contains("no category"))
        #expect(try category(of: "Spoon") is NSNull)

        try InvariantChecker(world: world).verify(inputs: Array(images[0...3]) + [images[4], images[5], images[6]], controlSocket: socket)
        #expect(try daemon.terminate() == 0)
    }

    @Test func addedByIsTheOwnerOfTheDroppedFile() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make((1...3).map { TestImages.jpeg(root + "/i\($0)", width: 120, height: 90, seed: 10 + $0) })
        try world.drop("Root spoon.jpg", images[0])
        // A uid without a passwd entry is recorded as the number.
        var unknown: UInt32 = 54321
        while getpwuid(unknown) != nil { unknown += 1 }
        let stranger = try world.drop("Stranger fork.jpg", images[1])
        #expect(chown(stranger.path, unknown, unknown) == 0)
        let daemon = try RunningDaemon(world: world)
        let socket = world.root.appendingPathComponent("control.sock").path
        try daemon.waitForUtensils(2)

        // A file copied in by another user (nobody) is theirs.
        #expect(chmod(world.root.path, 0o755) == 0)
        #expect(chmod(world.inbox.path, 0o777) == 0)
        let source = world.root.appendingPathComponent("whisk-source.jpg")
        try images[2].write(to: source)
        #expect(chmod(source.path, 0o644) == 0)
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        copy.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/cp", source.path, world.inbox.path + "/Nobody whisk.jpg"]
        try copy.run()
        copy.waitUntilExit()
        #expect(copy.terminationStatus == 0)
        try daemon.waitForUtensils(3)
        let nobody = try #require(getpwuid(65534)).pointee.pw_name.map { String(cString: $0) }

        func addedBy(_ name: String) throws -> String? {
            (json(try ctl(["show", name, "--json"], socket)) as? [String: Any])?["addedBy"] as? String
        }
        #expect(try addedBy("Root spoon") == "root")
        #expect(try addedBy("Stranger fork") == String(unknown))
        #expect(try addedBy("Nobody whisk") == nobody)
        #expect(try ctl(["show", "Nobody whisk"], socket).output.contains("added by"))
        let mine = try ctl(["list", "--added-by", try #require(nobody), "--json"], socket)
        #expect(utensils(mine).map { $0["name"] as? String } == ["Nobody whisk"])
        #expect(utensils(try ctl(["list", "--added-by", String(unknown), "--json"], socket)).count == 1)
        #expect(try daemon.terminate() == 0)
    }

    @Test func nameOrderIgnoresCaseAndAccentsAndPagesKeepIt() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let names = ["Zester", "éclair", "Eclairs", "fork", "Apple corer", "Ëclair", "Éclair tongs"]
        let images = try TestImages.make(names.indices.map { TestImages.png(world.root.path + "/n\($0)", width: 40, height: 30, seed: 30 + $0) })
        for (name, image) in zip(names, images) { try world.drop(name + ".png", image) }
        let daemon = try RunningDaemon(world: world)
        let socket = world.root.appendingPathComponent("control.sock").path
        try daemon.waitForUtensils(names.count)
        let expected = ["Apple corer", "Ëclair", "éclair", "Éclair tongs", "Eclairs", "fork", "Zester"]
        let all = try ctl(["list", "--sort", "name", "--json"], socket)
        #expect(utensils(all).compactMap { $0["name"] as? String } == expected)
        var paged: [String] = []
        var after: String?
        repeat {
            let page = try ctl(["list", "--sort", "name", "--limit", "2", "--json"] + (after.map { ["--after", $0] } ?? []), socket)
            paged += utensils(page).compactMap { $0["name"] as? String }
            after = (json(page) as? [String: Any])?["next"] as? String
        } while after != nil
        #expect(paged == expected)
        #expect(try daemon.terminate() == 0)
    }
}

/// The trash: delete, restore (with a name clash and `--as`), delete for good, and the purge.
@Suite("The trash against utensild", .serialized, .tags(.spawnsProcesses))
struct TrashEndToEndTests {
    func ctl(_ arguments: [String], _ socket: String) throws -> UtensilctlEndToEndTests.Run {
        try UtensilctlEndToEndTests.ctl(arguments, socket: socket)
    }

    func json(_ run: UtensilctlEndToEndTests.Run) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(run.output.utf8))
    }

    func names(_ run: UtensilctlEndToEndTests.Run) -> [String] {
        (((json(run) as? [String: Any])?["utensils"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
    }

    @Test func trashRestoreNameClashAsAndDeleteNow() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try TestImages.make((0..<4).map { TestImages.jpeg(world.root.path + "/t\($0)", width: 100, height: 80, seed: 50 + $0) })
        try world.drop("Spoon.jpg", images[0])
        try world.drop("Whisk.jpg", images[1])
        try world.drop("Knives/Santoku.jpg", images[2])
        let daemon = try RunningDaemon(world: world)
        let socket = world.root.appendingPathComponent("control.sock").path
        try daemon.waitForUtensils(3)
        func id(_ name: String) throws -> String {
            try #require((json(try ctl(["show", name, "--json"], socket)) as? [String: Any])?["id"] as? String)
        }
        let spoon = try id("Spoon")
        let whisk = try id("Whisk")
        let santoku = try id("Santoku")

        // To the trash: gone from list, search and categories; files kept; the name is free.
        let trashed = try #require(json(try ctl(["delete", spoon, "--json"], socket)) as? [String: Any])
        let trashedAt = try #require(trashed["trashedAt"] as? String)
        let purgeAt = try #require(trashed["purgeAt"] as? String)
        #expect(trashedAt < purgeAt)
        #expect(!names(try ctl(["list", "--json"], socket)).contains("Spoon"))
        #expect(names(try ctl(["list", "--search", "spoon", "--json"], socket)).isEmpty)
        #expect(FileManager.default.fileExists(atPath: try #require(trashed["original"] as? String)))
        #expect(FileManager.default.fileExists(atPath: try #require(trashed["thumbnail"] as? String)))
        #expect(try ctl(["delete", santoku], socket).status == 0)
        #expect((json(try ctl(["categories", "--json"], socket)) as? [Any])?.isEmpty == true)
        let inTrash = try #require(json(try ctl(["trash", "--json"], socket)) as? [[String: Any]])
        #expect(inTrash.compactMap { $0["id"] as? String } == [spoon, santoku])
        #expect(inTrash.allSatisfy { $0["purgeAt"] is String && $0["trashedAt"] is String })
        let table = try ctl(["trash"], socket)
        #expect(table.output.contains("PURGED") && table.output.contains("Santoku"))

        // A new drop takes the name; restoring the old one is then refused, suggesting --as.
        try world.drop("spoon.jpg", images[3])
        try daemon.waitForUtensils(4)  // The catalog file holds trashed rows too.
        let clash = try ctl(["restore", spoon], socket)
        #expect(clash.status == 1)
        #expect(clash.errors.contains("--as"), "\(clash.errors)")
        let restored = try #require(json(try ctl(["restore", spoon, "--as", "Old spoon", "--json"], socket)) as? [String: Any])
        #expect(restored["name"] as? String == "Old spoon")
        #expect(restored["updatedAt"] is String)
        #expect(restored["trashedAt"] == nil)
        #expect(Set(names(try ctl(["list", "--json"], socket))) == ["Old spoon", "spoon", "Whisk"])
        #expect(try ctl(["restore", spoon], socket).status == 1, "it is no longer in the trash")

        // For good: row and both files at once, from the catalog or from the trash.
        let gone = try #require(json(try ctl(["delete", "--now", whisk, "--json"], socket)) as? [String: Any])
        #expect(!FileManager.default.fileExists(atPath: try #require(gone["original"] as? String)))
        #expect(!FileManager.default.fileExists(atPath: try #require(gone["thumbnail"] as? String)))
        #expect(gone["purgeAt"] == nil && gone["trashedAt"] == nil)
        // From the trash, it says what it did: deleted for good, not moved to the trash.
        let fromTrash = try ctl(["delete", "--now", santoku], socket)
        #expect(fromTrash.status == 0)
        #expect(fromTrash.output.contains("for good") && !fromTrash.output.contains("trash"), "\(fromTrash.output)")
        #expect((json(try ctl(["trash", "--json"], socket)) as? [Any])?.isEmpty == true)
        // Every permanent deletion is journalled, with who did it.
        try daemon.waitUntil(seconds: 10, "the journal line of the deletion from the trash") {
            daemon.log.contains("Deleted for good from the trash: utensil") && daemon.log.contains("Deleted for good: utensil Whisk")
        }

        try InvariantChecker(world: world).verify(inputs: [images[0], images[3]], controlSocket: socket)
        #expect(try daemon.terminate() == 0)
    }

    @Test func theDaemonPurgesTheTrashAfterTrashDays() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try TestImages.make((0..<2).map { TestImages.png(world.root.path + "/p\($0)", width: 60, height: 40, seed: 70 + $0) })
        try world.drop("Ladle.png", images[0])
        try world.drop("Colander.png", images[1])
        // 0.00003 days is about 2.6 seconds.
        let daemon = try RunningDaemon(world: world, extra: ["--trash-days", "0.00003"])
        let socket = world.root.appendingPathComponent("control.sock").path
        try daemon.waitForUtensils(2)
        let ladle = try #require((json(try ctl(["show", "Ladle", "--json"], socket)) as? [String: Any]))
        #expect(try ctl(["delete", try #require(ladle["id"] as? String)], socket).status == 0)
        #expect((json(try ctl(["trash", "--json"], socket)) as? [Any])?.count == 1)
        try daemon.waitUntil("the purge") {
            (json((try? ctl(["trash", "--json"], socket)) ?? UtensilctlEndToEndTests.Run(status: 1, output: "", errors: "")) as? [Any])?.isEmpty == true
        }
        #expect(!FileManager.default.fileExists(atPath: try #require(ladle["original"] as? String)))
        #expect(!FileManager.default.fileExists(atPath: try #require(ladle["thumbnail"] as? String)))
        #expect(daemon.log.contains("Purged 1 utensils"))
        try InvariantChecker(world: world).verify(inputs: [images[1]], controlSocket: socket)
        #expect(try daemon.terminate() == 0)
    }

    @Test func trashDaysZeroDeletesAtOnce() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/z", seed: 90)])[0]
        try world.drop("Grater.jpg", image)
        let daemon = try RunningDaemon(world: world, extra: ["--trash-days", "0"])
        let socket = world.root.appendingPathComponent("control.sock").path
        try daemon.waitForUtensils(1)
        let grater = try #require((json(try ctl(["show", "Grater", "--json"], socket)) as? [String: Any]))
        let graterID = try #require(grater["id"] as? String)
        let deleted = try #require(json(try ctl(["delete", graterID, "--json"], socket)) as? [String: Any])
        #expect(deleted["purgeAt"] == nil)
        #expect(!FileManager.default.fileExists(atPath: try #require(grater["original"] as? String)))
        #expect((json(try ctl(["trash", "--json"], socket)) as? [Any])?.isEmpty == true)
        #expect(try daemon.terminate() == 0)
    }
}
