import Foundation
import Testing
import UtensilTestSupport

/// `utensild restore` of backups whose catalog was tampered with the sqlite3 CLI (and its
/// checksum in backup.json made to match): each is refused in one sentence naming what is
/// wrong, and leaves the target catalog and state folder empty; the untouched backup
/// still restores.
@Suite("Restoring tampered backups", .serialized, .tags(.spawnsProcesses))
struct HostileBackupRestoreTests {
    private static func socket(_ world: TestWorld) -> String { world.root.appendingPathComponent("control.sock").path }

    /// A real backup of three utensils (one in a category, one a favorite) made by a real daemon.
    private static func makeBackup(in world: TestWorld) throws -> URL {
        let photos = try TestImages.make((0..<3).map { TestImages.jpeg(world.root.path + "/photo-\($0)", seed: 310 + $0) })
        for (index, name) in ["Knives/Chef Knife.jpg", "Ladle.jpg", "Whisk.jpg"].enumerated() { try world.drop(name, photos[index]) }
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(3)
        let listed = try #require(
            try Utensilctl.run(["list", "--json", "--limit", "1"], socket: socket(world)).json?["utensils"] as? [[String: Any]])
        let favorite = try #require(listed.first?["id"] as? String)
        #expect(try Utensilctl.run(["favorite", favorite], socket: socket(world)).status == 0)
        let backup = world.root.appendingPathComponent("backup")
        let made = try Utensilctl.run(["backup", backup.path], socket: socket(world))
        #expect(made.status == 0, "\(made.errors)\n\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
        return backup
    }

    /// Whether nothing was installed in `world`: no catalog with a row, no file in a photo
    /// folder, nothing left half-way.
    private static func expectNothingInstalled(in world: TestWorld, _ what: String) throws {
        let catalog = world.state.appendingPathComponent("utensils.sqlite")
        #expect(!FileManager.default.fileExists(atPath: catalog.path), "\(what): \(world.files(in: world.state))")
        for folder in [world.originals, world.thumbnails, world.previews] {
            #expect(world.files(in: folder).isEmpty, "\(what): \(folder.lastPathComponent) holds \(world.files(in: folder))")
        }
        #expect(!world.files(in: world.state).contains { $0.hasPrefix(".restoring-") }, "\(what): \(world.files(in: world.state))")
    }

    @Test func aTamperedCatalogIsRefusedInOneSentenceAndNothingIsInstalled() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let backup = try Self.makeBackup(in: world)
        let first = "(SELECT min(id) FROM utensil)"
        let tampers: [(what: String, sql: String, sentence: [String])] = [
            ("an id that is not a UUID", "UPDATE utensil SET id = 'not-a-uuid' WHERE id = \(first)",
             ["its utensil row", "has the id \"not-a-uuid\", which is not a UUID"]),
            ("a trigger that empties the catalog",
             "CREATE TRIGGER wipe AFTER INSERT ON utensil BEGIN DELETE FROM utensil; END",
             ["has a trigger named \"wipe\" that utensild's schema does not have"]),
            ("a trigger of utensild's name that does something else",
             "DROP TRIGGER utensilCountInsert; CREATE TRIGGER utensilCountInsert AFTER INSERT ON utensil BEGIN DELETE FROM utensil; END",
             ["its trigger \"utensilCountInsert\" is not the one utensild's schema has"]),
            ("a view", "CREATE VIEW everything AS SELECT * FROM utensil",
             ["has a view named \"everything\" that utensild's schema does not have"]),
            ("an extension that climbs out of originals/",
             "UPDATE utensil SET extension = 'jpg/../../../etc/hostname' WHERE id = \(first)",
             ["has the extension \"jpg/../../../etc/hostname\", which is not one of .jpg"]),
            ("a name with a line break", "UPDATE utensil SET name = 'Spoon' || char(10) || 'Fork' WHERE id = \(first)",
             ["has a name that contains a line break"]),
            ("a date before 2000", "UPDATE utensil SET createdAt = '1970-01-01 00:00:00.000' WHERE id = \(first)",
             ["has the creation date 1970-01-01", "before 2000"]),
            ("a category that is a path", "UPDATE utensil SET category = '../..' WHERE category IS NOT NULL",
             ["has the category \"../..\", which is not the name of a folder the inbox takes drops from"]),
            ("a checksum that is not hex", "UPDATE utensil SET sha256 = 'xyz' WHERE id = \(first)",
             ["has the checksum \"xyz\", which is not 64 lower-case hex digits"]),
            ("a negative width", "UPDATE utensil SET width = -5 WHERE id = \(first)", ["has the width -5"]),
            ("a host that is not a host name", "UPDATE utensil SET host = 'evil host' WHERE id = \(first)",
             ["has the host \"evil host\", which is not a host name"]),
            ("a favorite of a utensil it does not hold",
             "PRAGMA foreign_keys = OFF; UPDATE favorite SET utensilId = '00000000-0000-4000-8000-000000000000'",
             ["its favorite row 1", "names the utensil 00000000-0000-4000-8000-000000000000, which the catalog does not hold"]),
            ("another column", "ALTER TABLE utensil ADD COLUMN evil TEXT",
             ["its table utensil does not have the columns utensild makes it with"]),
        ]
        for (index, tamper) in tampers.enumerated() {
            let copy = try TamperedBackup.make(from: backup, tamper.sql, as: "tampered-\(index)")
            let fresh = try TestWorld()
            defer { fresh.remove() }
            let refused = try UtensildProcess.run(UtensildProcess.arguments(for: fresh) + ["restore", copy.path])
            #expect(refused.status == 1, "\(tamper.what): \(refused.output)\(refused.errors)")
            #expect(refused.errors.split(separator: "\n").count == 1, "\(tamper.what): \(refused.errors)")
            #expect(refused.errors.contains("\(copy.path)/utensils.sqlite cannot be restored: "), "\(tamper.what): \(refused.errors)")
            for words in tamper.sentence + ["nothing was installed, so restore from another backup."] {
                #expect(refused.errors.contains(words), "\(tamper.what): \(refused.errors)")
            }
            try Self.expectNothingInstalled(in: fresh, tamper.what)
        }

        // The backup as it was made restores, and its catalog has the daemon's own schema.
        let fresh = try TestWorld()
        defer { fresh.remove() }
        let restored = try UtensildProcess.run(UtensildProcess.arguments(for: fresh) + ["restore", backup.path])
        #expect(restored.status == 0, "\(restored.output)\(restored.errors)")
        #expect(restored.output.contains("Restored 3 utensils (0 in the trash, 1 categories)"), "\(restored.output)")
        let again = try RunningDaemon(world: fresh)
        let favorites = try Utensilctl.run(["list", "--favorites", "--json"], socket: Self.socket(fresh))
        #expect((favorites.json?["utensils"] as? [[String: Any]])?.count == 1, "\(favorites.output)")
        let check = try Utensilctl.run(["check", "--json"], socket: Self.socket(fresh))
        #expect(check.status == 0 && check.json?["ok"] as? Bool == true, "\(check.output)\(check.errors)")
        #expect(try again.terminate() == 0, "\(again.log)")
    }
}
