import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilStore
import UtensilTestSupport

/// `utensilctl backup` against the real daemon while drops arrive, and `utensild restore` of
/// what it wrote into a fresh state folder; damaged backups refused with a sentence.
@Suite("Backup and restore against utensild", .serialized, .tags(.spawnsProcesses))
struct BackupRestoreEndToEndTests {
    private func socket(_ world: TestWorld) -> String { world.root.appendingPathComponent("control.sock").path }

    private func manifest(_ backup: URL) throws -> BackupManifest {
        try JSONDecoder().decode(BackupManifest.self, from: Data(contentsOf: backup.appendingPathComponent("backup.json")))
    }

    /// `utensild … restore BACKUP` on `world`'s folders.
    private func restore(_ backup: URL, into world: TestWorld) throws -> UtensildProcess.Result {
        try UtensildProcess.run(UtensildProcess.arguments(for: world) + ["restore", backup.path])
    }

    private func photos(_ count: Int, in world: TestWorld, seed: Int) throws -> [Data] {
        try TestImages.make((0..<count).map { index in
            TestImages.jpeg(world.root.path + "/photo\(index)", width: 160 + index, height: 120, seed: seed + index)
        })
    }

    @Test func aBackupTakenDuringABurstOfDropsRestoresIntoAFreshStateFolder() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try photos(40, in: world, seed: 700)
        for index in 0..<20 { try world.drop(index < 5 ? "Knives/Utensil \(index).jpg" : "Utensil \(index).jpg", images[index]) }
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(20)
        let first = try #require(try Utensilctl.run(["list", "--json", "--limit", "1"], socket: socket(world)).json?["utensils"] as? [[String: Any]])
        let trashed = try #require(first.first?["id"] as? String)
        #expect(try Utensilctl.run(["delete", trashed], socket: socket(world)).status == 0)
        // A favorite (a table of its own) comes along too.
        let page = try #require(try Utensilctl.run(["list", "--json", "--limit", "1"], socket: socket(world)).json?["utensils"] as? [[String: Any]])
        let favorite = try #require(page.first?["id"] as? String)
        #expect(try Utensilctl.run(["favorite", favorite], socket: socket(world)).status == 0)

        // Twenty more drops arrive while the backup runs.
        let dropped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for index in 20..<40 { _ = try? world.drop("Utensil \(index).jpg", images[index]) }
            dropped.signal()
        }
        let backup = world.root.appendingPathComponent("backup")
        let run = try Utensilctl.run(["backup", "--json", backup.path], socket: socket(world))
        #expect(run.status == 0, "\(run.errors)\n\(daemon.log)")
        dropped.wait()
        try daemon.waitForUtensils(40)
        #expect(try daemon.terminate() == 0)

        // The backup holds one snapshot of the catalog and exactly its files, as backup.json lists them.
        let listed = try manifest(backup)
        let snapshot = try CatalogFile.inspect(path: backup.appendingPathComponent("utensils.sqlite").path, rules: BackupRowRules())
        #expect((20...40).contains(snapshot.utensils.count))
        #expect(listed.counts.utensils + listed.counts.trash == snapshot.utensils.count)
        #expect(listed.counts.trash == 1)
        #expect(listed.counts.categories == 1)
        #expect(run.json?["utensils"] as? Int == listed.counts.utensils)
        #expect(run.json?["files"] as? Int == listed.files.count)
        #expect(listed.missing.isEmpty)
        let expectedPaths = Set(snapshot.utensils.flatMap { utensil in
            BackupFolder.all.map { "\($0.name)/\($0.fileName(utensil.id, utensil.fileExtension))" }
        })
        #expect(Set(listed.files.map(\.path)) == expectedPaths)
        for file in listed.files {
            #expect(sha256Hex(try Data(contentsOf: backup.appendingPathComponent(file.path))) == file.sha256, "\(file.path)")
        }

        // Restored into a fresh state folder: the same ids, the same bytes, `check` clean.
        let fresh = try TestWorld()
        defer { fresh.remove() }
        let restored = try restore(backup, into: fresh)
        #expect(restored.status == 0, "\(restored.errors)")
        #expect(restored.output.contains("Restored \(listed.counts.utensils) utensils (1 in the trash, 1 categories)"), "\(restored.output)")
        let again = try RunningDaemon(world: fresh)
        let check = try Utensilctl.run(["check", "--json"], socket: socket(fresh))
        #expect(check.status == 0 && check.json?["ok"] as? Bool == true, "\(check.output)\(check.errors)")
        let rows = try again.waitForCatalog("the restored catalog") { _ in true }
        #expect(Set(rows.map(\.id)) == Set(snapshot.utensils.map(\.id)))
        for file in listed.files {
            #expect(sha256Hex(try Data(contentsOf: fresh.state.appendingPathComponent(file.path))) == file.sha256, "\(file.path)")
        }
        let installed = BackupFolder.all.map { fresh.files(in: fresh.state.appendingPathComponent($0.name)).count }.reduce(0, +)
        #expect(installed == listed.files.count)
        let trash = try Utensilctl.run(["trash", "--json"], socket: socket(fresh))
        #expect(trash.output.contains(trashed), "\(trash.output)")
        let favorites = try Utensilctl.run(["list", "--favorites", "--json"], socket: socket(fresh))
        #expect((favorites.json?["utensils"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [favorite], "\(favorites.output)")
        let categories = try Utensilctl.run(["categories", "--json"], socket: socket(fresh))
        #expect(categories.output.contains("Knives"), "\(categories.output)")
        #expect(try again.terminate() == 0)
    }

    @Test func damagedBackupsAndUnusableTargetsAreRefusedWithASentence() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try photos(5, in: world, seed: 900)
        for index in 0..<5 { try world.drop("Utensil \(index).jpg", images[index]) }
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(5)
        let backup = world.root.appendingPathComponent("backup")
        let made = try Utensilctl.run(["backup", backup.path], socket: socket(world))
        #expect(made.status == 0, "\(made.errors)")
        #expect(made.output.contains("Backed up 5 utensils"), "\(made.output)")

        // A destination that exists, or inside the photo folders, is refused; nothing is written.
        let exists = try Utensilctl.run(["backup", backup.path], socket: socket(world))
        #expect(exists.status == 1 && exists.errors.contains("exists already"), "\(exists.errors)")
        let inside = try Utensilctl.run(["backup", world.originals.appendingPathComponent("copy").path], socket: socket(world))
        #expect(inside.status == 1 && inside.errors.contains("inside a folder utensild watches or keeps photos in"), "\(inside.errors)")
        #expect(!FileManager.default.fileExists(atPath: world.originals.appendingPathComponent("copy").path))
        // In the inbox, its photos would be ingested again.
        let inInbox = try Utensilctl.run(["backup", world.inbox.appendingPathComponent("backup").path], socket: socket(world))
        #expect(inInbox.status == 1 && inInbox.errors.contains("outside the inbox"), "\(inInbox.errors)")
        // A restore while the daemon runs is refused by the state lock.
        let whileRunning = try restore(backup, into: world)
        #expect(whileRunning.status == 1 && whileRunning.errors.contains("another utensild"), "\(whileRunning.errors)")
        #expect(try daemon.terminate() == 0)
        // So is one into a state folder that holds utensils.
        let notEmpty = try restore(backup, into: world)
        #expect(notEmpty.status == 1 && notEmpty.errors.contains("only into an empty catalog and state folder"), "\(notEmpty.errors)")

        let listed = try manifest(backup)
        let original = try #require(listed.files.first { $0.path.hasPrefix("originals/") })
        let thumbnail = try #require(listed.files.first { $0.path.hasPrefix("thumbnails/") })
        let damages: [(String, [String], (URL) throws -> Void)] = [
            ("a flipped byte in an original", [original.path, "damaged"], { copy in
                let url = copy.appendingPathComponent(original.path)
                var bytes = try Data(contentsOf: url)
                bytes[bytes.count / 2] ^= 0x01
                try bytes.write(to: url)
            }),
            ("a truncated catalog", ["utensils.sqlite", "damaged"], { copy in
                let url = copy.appendingPathComponent("utensils.sqlite")
                try Data(try Data(contentsOf: url).prefix(4096)).write(to: url)
            }),
            ("a missing thumbnail", [thumbnail.path, "missing"], { copy in
                try FileManager.default.removeItem(at: copy.appendingPathComponent(thumbnail.path))
            }),
            ("a tampered count in backup.json", ["backup.json", "counts 6 utensils"], { copy in
                var tampered = listed
                tampered.counts.utensils += 1
                try JSONEncoder().encode(tampered).write(to: copy.appendingPathComponent("backup.json"))
            }),
            ("a tampered checksum in backup.json", [thumbnail.path], { copy in
                var tampered = listed
                let index = try #require(tampered.files.firstIndex { $0.path == thumbnail.path })
                tampered.files[index].sha256 = String(repeating: "0", count: 64)
                try JSONEncoder().encode(tampered).write(to: copy.appendingPathComponent("backup.json"))
            }),
            ("no backup.json", ["no backup.json"], { copy in
                try FileManager.default.removeItem(at: copy.appendingPathComponent("backup.json"))
            }),
        ]
        for (index, (what, sentence, damage)) in damages.enumerated() {
            let copy = world.root.appendingPathComponent("damaged-\(index)")
            try FileManager.default.copyItem(at: backup, to: copy)
            try damage(copy)
            let fresh = try TestWorld()
            defer { fresh.remove() }
            let refused = try restore(copy, into: fresh)
            #expect(refused.status == 1, "\(what): \(refused.output)")
            #expect(refused.errors.split(separator: "\n").count == 1, "\(what): \(refused.errors)")
            for words in sentence { #expect(refused.errors.contains(words), "\(what): \(refused.errors)") }
            // Nothing was installed, and nothing left half-way.
            #expect(fresh.files(in: fresh.originals).isEmpty && fresh.files(in: fresh.thumbnails).isEmpty, "\(what)")
            #expect(!fresh.files(in: fresh.state).contains { $0.hasPrefix(".restoring-") }, "\(what): \(fresh.files(in: fresh.state))")
            // The intact backup still restores there afterwards.
            if index == damages.count - 1 {
                let intact = try restore(backup, into: fresh)
                #expect(intact.status == 0, "\(intact.errors)")
            }
        }
    }

    @Test(.enabled(if: geteuid() == 0, "needs root: a restore run as root hands what it installs to the state folder's owner"))
    func runAsRootWhatTheRestoreInstallsBelongsToTheStateFoldersOwner() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try photos(3, in: world, seed: 950)
        for index in 0..<3 { try world.drop("Utensil \(index).jpg", images[index]) }
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(3)
        let backup = world.root.appendingPathComponent("backup")
        #expect(try Utensilctl.run(["backup", backup.path], socket: socket(world)).status == 0)
        #expect(try daemon.terminate() == 0)

        // The state folder as systemd's StateDirectory= makes it: the daemon's user owns it.
        let fresh = try TestWorld()
        defer { fresh.remove() }
        let nobody: uid_t = 65534
        #expect(chown(fresh.state.path, nobody, gid_t(nobody)) == 0)
        let restored = try restore(backup, into: fresh)
        #expect(restored.status == 0, "\(restored.errors)")
        var owned: [String] = ["originals", "thumbnails", "utensils.sqlite", "utensild.lock"]
        owned += fresh.files(in: fresh.originals).map { "originals/" + $0 } + fresh.files(in: fresh.thumbnails).map { "thumbnails/" + $0 }
        #expect(owned.count == 4 + 3 + 3)
        for path in owned {
            var status = stat()
            #expect(lstat(fresh.state.appendingPathComponent(path).path, &status) == 0, "\(path)")
            #expect(status.st_uid == nobody && status.st_gid == gid_t(nobody), "\(path) is owned by \(status.st_uid)")
        }
    }
}
