import Foundation
import Testing
import UtensilTestSupport

/// `utensild --oneshot` with its catalog in a real PostgreSQL 15: the drops become rows there
/// (no SQLite file in the state folder), and a later run's duplicate name is refused by the
/// catalog's claim.
@Suite("PostgreSQL oneshot", .serialized, .tags(.spawnsProcesses))
struct PostgresOneShotTests {
    @Test func oneshotIngestsIntoPostgreSQL() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let catalog = ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1", "--oneshot"]
        let photos = try TestImages.make((0..<3).map { TestImages.jpeg(world.root.path + "/photo-\($0).jpg", seed: 60 + $0) })
        try world.drop("Ladle.jpg", photos[0])
        try world.drop("Knives/Chef Knife.jpg", photos[1])

        let first = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: catalog))
        #expect(first.status == 0, "\(first.output)\(first.errors)\n\(server.log)")
        #expect(first.output.contains("2 ingested, 0 rejected, 0 left for retry"), "\(first.output)")
        let rows = try server.superuserSQL(
            "SELECT string_agg(name || '|' || coalesce(category, '-') || '|' || host, ',' ORDER BY name) FROM utensils",
            database: server.database)
        #expect(rows == "Chef Knife|Knives|kitchen-1,Ladle|-|kitchen-1", "\(rows)")
        #expect(!FileManager.default.fileExists(atPath: world.state.appendingPathComponent("utensils.sqlite").path))
        #expect(world.files(in: world.originals).count == 2 && world.files(in: world.thumbnails).count == 2)
        #expect(world.files(in: world.inbox).filter { !$0.hasPrefix(".") && $0 != "Knives" }.isEmpty, "\(world.files(in: world.inbox))")

        // The name is claimed in PostgreSQL: a second run refuses it.
        try world.drop("LADLE.jpg", photos[2])
        let second = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: catalog))
        #expect(second.status == 0, "\(second.output)\(second.errors)")
        #expect(second.output.contains("0 ingested, 1 rejected, 0 left for retry"), "\(second.output)")
        #expect(try world.sidecar(for: "LADLE.jpg")["reason"] as? String == "duplicate-name")
        #expect(try server.superuserSQL("SELECT count(*) FROM utensils", database: server.database) == "2")
    }
}
