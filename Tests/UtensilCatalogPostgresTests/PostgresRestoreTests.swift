import Foundation
import Testing
import UtensilTestSupport

/// Moving a SQLite catalog into PostgreSQL as an operator does: `utensilctl backup` from a
/// daemon on SQLite, `utensild restore` with a PostgreSQL `catalog` into a fresh state folder,
/// then a daemon on PostgreSQL lists the same utensils; a second restore into the now
/// non-empty catalog is refused and changes nothing.
@Suite("PostgreSQL restore", .serialized, .tags(.spawnsProcesses))
struct PostgresRestoreTests {
    private static func socket(_ world: TestWorld) -> String { world.root.appendingPathComponent("control.sock").path }

    /// `id|name|category` of every utensil `utensilctl list` shows, sorted.
    private static func listing(_ world: TestWorld, _ arguments: [String] = []) throws -> [String] {
        let run = try Utensilctl.run(["list", "--json", "--limit", "1000"] + arguments, socket: socket(world))
        #expect(run.status == 0, "\(run.errors)")
        let utensils = try #require(run.json?["utensils"] as? [[String: Any]], "\(run.output)")
        return utensils.map { "\($0["id"] as? String ?? "?")|\($0["name"] as? String ?? "?")|\($0["category"] as? String ?? "-")" }.sorted()
    }

    private static func id(of name: String, in world: TestWorld) throws -> String {
        let line = try #require(try listing(world).first { $0.split(separator: "|")[1] == name })
        return String(line.split(separator: "|")[0])
    }

    private static func trash(_ world: TestWorld) throws -> [String] {
        let run = try Utensilctl.run(["trash", "--json"], socket: socket(world))
        #expect(run.status == 0, "\(run.errors)")
        let utensils = try #require(
            try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]], "\(run.output)")
        return utensils.compactMap { $0["id"] as? String }.sorted()
    }

    @Test func aSQLiteBackupRestoresIntoAnEmptyPostgreSQLCatalogAndOnlyThere() throws {
        // A daemon on SQLite: four photos, one in a category, one trashed, one a favorite.
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try TestImages.make((0..<4).map { TestImages.jpeg(world.root.path + "/photo-\($0).jpg", seed: 80 + $0) })
        for (index, name) in ["Knives/Chef Knife.jpg", "Ladle.jpg", "Whisk.jpg", "Tongs.jpg"].enumerated() {
            try world.drop(name, photos[index])
        }
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(4)
        let whisk = try Self.id(of: "Whisk", in: world)
        let ladle = try Self.id(of: "Ladle", in: world)
        #expect(try Utensilctl.run(["delete", whisk], socket: Self.socket(world)).status == 0)
        #expect(try Utensilctl.run(["favorite", ladle], socket: Self.socket(world)).status == 0)
        let listed = try Self.listing(world)
        #expect(listed.count == 3 && listed.contains { $0.hasSuffix("|Chef Knife|Knives") }, "\(listed)")
        let backup = world.root.appendingPathComponent("backup")
        let made = try Utensilctl.run(["backup", backup.path], socket: Self.socket(world))
        #expect(made.status == 0, "\(made.errors)\n\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")

        // Restored into PostgreSQL and a fresh state folder.
        let server = try PostgresServer()
        defer { server.remove() }
        let catalog = ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-2"]
        let fresh = try TestWorld()
        defer { fresh.remove() }
        // First, a catalog that refuses the rows (its role may not insert into `utensils`):
        // the restore fails after the files are in place, and takes them out again.
        // (A restore of no backup at all still prepares the schema, which is then there to revoke on.)
        let nothing = try UtensildProcess.run(
            UtensildProcess.arguments(for: fresh, extra: catalog) + ["restore", world.root.appendingPathComponent("no-such-backup").path])
        #expect(nothing.status == 1 && nothing.errors.contains("There is no folder"), "\(nothing.errors)")
        try server.superuserSQL("REVOKE INSERT ON utensils FROM \(server.role)", database: server.database)
        let failed = try UtensildProcess.run(UtensildProcess.arguments(for: fresh, extra: catalog) + ["restore", backup.path])
        #expect(failed.status == 1, "\(failed.output)\(failed.errors)")
        #expect(failed.errors.split(separator: "\n").count == 1, "\(failed.errors)")
        #expect(failed.errors.contains("could not be loaded into the catalog") && failed.errors.contains("nothing was installed"), "\(failed.errors)")
        #expect(fresh.files(in: fresh.originals).isEmpty && fresh.files(in: fresh.thumbnails).isEmpty, "\(fresh.files(in: fresh.originals))")
        #expect(!fresh.files(in: fresh.state).contains { $0.hasPrefix(".restoring-") }, "\(fresh.files(in: fresh.state))")
        #expect(try server.superuserSQL("SELECT count(*) FROM utensils", database: server.database) == "0")
        try server.superuserSQL("GRANT INSERT ON utensils TO \(server.role)", database: server.database)

        // Then restored for real, into the same folder.
        let restored = try UtensildProcess.run(UtensildProcess.arguments(for: fresh, extra: catalog) + ["restore", backup.path])
        #expect(restored.status == 0, "\(restored.output)\(restored.errors)\n\(server.log)")
        #expect(restored.output.contains("Restored 3 utensils (1 in the trash, 1 categories) and "), "\(restored.output)")
        #expect(restored.output.contains("into the catalog \(server.tcpURL) and \(fresh.state.path)"), "\(restored.output)")
        let rows = "SELECT string_agg(id::text || '|' || name || '|' || coalesce(category, '-') || '|' || (trashed_at IS NOT NULL)::text, ',' ORDER BY id) FROM utensils"
        let loaded = try server.superuserSQL(rows, database: server.database)
        #expect(loaded.split(separator: ",").count == 4, "\(loaded)")
        #expect(!FileManager.default.fileExists(atPath: fresh.state.appendingPathComponent("utensils.sqlite").path))
        #expect(!fresh.files(in: fresh.state).contains { $0.hasPrefix(".restoring-") }, "\(fresh.files(in: fresh.state))")

        // A daemon on that catalog: the same utensils, trash, categories and favorite; `check` clean.
        let again = try RunningDaemon(world: fresh, extra: catalog)
        #expect(try Self.listing(fresh) == listed)
        #expect(try Self.trash(fresh) == [whisk])
        #expect(try Self.listing(fresh, ["--favorites"]).map { String($0.split(separator: "|")[0]) } == [ladle])
        let categories = try Utensilctl.run(["categories", "--json"], socket: Self.socket(fresh))
        #expect(categories.output.contains("\"Knives\""), "\(categories.output)")
        let check = try Utensilctl.run(["check", "--json"], socket: Self.socket(fresh), timeout: 120)
        #expect(check.status == 0 && check.json?["ok"] as? Bool == true, "\(check.output)\(check.errors)\n\(again.log)")
        #expect(try again.terminate() == 0, "\(again.log)")

        // Again, into the now non-empty catalog: refused in one sentence, nothing changed.
        let other = try TestWorld()
        defer { other.remove() }
        let refused = try UtensildProcess.run(UtensildProcess.arguments(for: other, extra: catalog) + ["restore", backup.path])
        #expect(refused.status == 1, "\(refused.output)\(refused.errors)")
        #expect(refused.errors.split(separator: "\n").count == 1, "\(refused.errors)")
        #expect(refused.errors.contains("already holds 4 utensils") && refused.errors.contains("only into an empty catalog"), "\(refused.errors)")
        #expect(try server.superuserSQL(rows, database: server.database) == loaded)
        #expect(other.files(in: other.originals).isEmpty && other.files(in: other.thumbnails).isEmpty)
        #expect(!other.files(in: other.state).contains { $0.hasPrefix(".restoring-") }, "\(other.files(in: other.state))")
    }

    @Test func aTamperedBackupIsRefusedBeforeAnythingReachesPostgreSQL() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try TestImages.make((0..<2).map { TestImages.jpeg(world.root.path + "/photo-\($0).jpg", seed: 90 + $0) })
        for (index, name) in ["Ladle.jpg", "Whisk.jpg"].enumerated() { try world.drop(name, photos[index]) }
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(2)
        let backup = world.root.appendingPathComponent("backup")
        let made = try Utensilctl.run(["backup", backup.path], socket: Self.socket(world))
        #expect(made.status == 0, "\(made.errors)\n\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")

        let server = try PostgresServer()
        defer { server.remove() }
        let catalog = ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-2"]
        let tampers: [(sql: String, sentence: String)] = [
            ("UPDATE utensil SET id = 'not-a-uuid' WHERE id = (SELECT min(id) FROM utensil)",
             "has the id \"not-a-uuid\", which is not a UUID"),
            ("CREATE TRIGGER wipe AFTER INSERT ON utensil BEGIN DELETE FROM utensil; END",
             "has a trigger named \"wipe\" that utensild's schema does not have"),
        ]
        for (index, tamper) in tampers.enumerated() {
            let copy = try TamperedBackup.make(from: backup, tamper.sql, as: "tampered-\(index)")
            let fresh = try TestWorld()
            defer { fresh.remove() }
            let refused = try UtensildProcess.run(UtensildProcess.arguments(for: fresh, extra: catalog) + ["restore", copy.path])
            #expect(refused.status == 1, "\(refused.output)\(refused.errors)")
            #expect(refused.errors.split(separator: "\n").count == 1, "\(refused.errors)")
            #expect(refused.errors.contains(tamper.sentence) && refused.errors.contains("nothing was installed"), "\(refused.errors)")
            #expect(try server.superuserSQL("SELECT count(*) FROM utensils", database: server.database) == "0")
            #expect(fresh.files(in: fresh.originals).isEmpty && fresh.files(in: fresh.thumbnails).isEmpty, "\(fresh.files(in: fresh.originals))")
            #expect(!fresh.files(in: fresh.state).contains { $0.hasPrefix(".restoring-") }, "\(fresh.files(in: fresh.state))")
        }
        // The backup as made loads.
        let fresh = try TestWorld()
        defer { fresh.remove() }
        let restored = try UtensildProcess.run(UtensildProcess.arguments(for: fresh, extra: catalog) + ["restore", backup.path])
        #expect(restored.status == 0, "\(restored.output)\(restored.errors)\n\(server.log)")
        #expect(try server.superuserSQL("SELECT count(*) FROM utensils", database: server.database) == "2")
    }
}
