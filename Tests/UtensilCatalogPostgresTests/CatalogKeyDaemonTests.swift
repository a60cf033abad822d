import Foundation
import Testing
import UtensilTestSupport

/// The real utensild with `catalog` set to a PostgreSQL server that cannot be reached:
/// `--oneshot` and `restore`, which someone waits for, say so at once (exit 1) and install
/// nothing; a URL with a password is refused without showing it.
@Suite(.tags(.spawnsProcesses)) struct CatalogKeyDaemonTests {
    static let url = "postgresql://utensil@127.0.0.1:1/utensils"

    @Test func oneshotAndRestoreSayAtOnceThatTheyCannotReachPostgreSQL() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let backup = world.root.appendingPathComponent("backup").path
        let oneshot = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--catalog", Self.url, "--oneshot"]))
        #expect(oneshot.status == 1, "\(oneshot.errors)")
        #expect(oneshot.errors.contains("cannot reach PostgreSQL at"), "\(oneshot.errors)")
        let restore = try UtensildProcess.run(["restore", backup] + UtensildProcess.arguments(for: world, extra: ["--catalog", Self.url]))
        #expect(restore.status == 1, "\(restore.errors)")
        #expect(restore.errors.contains("utensild: catalog: cannot reach PostgreSQL at"), "\(restore.errors)")
        #expect(restore.errors.split(separator: "\n").count == 1, "\(restore.errors)")
        #expect(!FileManager.default.fileExists(atPath: world.state.appendingPathComponent("utensils.sqlite").path))
    }

    @Test func aPasswordInTheURLIsRefusedAndNeverShown() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let result = try UtensildProcess.run(
            UtensildProcess.arguments(for: world, extra: ["--check-config"]),
            environment: ["UTENSILD_CATALOG": "postgresql://utensil:Hunter2-secret@db.example.org/utensils"])
        #expect(result.status == 78)
        #expect(result.errors.contains("UTENSILD_CATALOG") && result.errors.contains("catalog_password_file"), "\(result.errors)")
        #expect(!(result.errors + result.output).contains("Hunter2"))
    }

    @Test func checkConfigPrintsTheCatalogKeys() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let result = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--check-config"]))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("\ncatalog = \"sqlite\"\n"))
        #expect(result.output.contains("\ncatalog_password_file = \"\"\n"))
    }
}
