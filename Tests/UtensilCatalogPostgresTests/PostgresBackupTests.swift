import Foundation
import Testing
import UtensilTestSupport

/// `utensilctl backup` of a catalog several hosts share: taken on one host while two hosts
/// ingest a burst, it is one portable backup (a SQLite catalog, the files, `backup.json`)
/// that restores, byte for byte, into an empty PostgreSQL catalog and into SQLite.
@Suite("PostgreSQL backup", .serialized, .tags(.spawnsProcesses))
struct PostgresBackupTests {
    private static func socket(_ world: TestWorld) -> String { world.root.appendingPathComponent("control.sock").path }

    /// `id|name|sha256 of the original` of every utensil `world`'s daemon lists, sorted.
    private static func listing(_ world: TestWorld) throws -> [String] {
        let run = try Utensilctl.run(["list", "--json", "--limit", "1000"], socket: socket(world))
        #expect(run.status == 0, "\(run.errors)")
        let utensils = try #require(run.json?["utensils"] as? [[String: Any]], "\(run.output)")
        return try utensils.map { utensil in
            let original = try #require(utensil["original"] as? String)
            return "\(utensil["id"] as? String ?? "?")|\(utensil["name"] as? String ?? "?")|\(sha256Hex(try Data(contentsOf: URL(fileURLWithPath: original))))"
        }.sorted()
    }

    @Test func aSharedCatalogBacksUpDuringABurstOnTwoHostsAndRestoresByteForByte() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let worlds = try (0..<2).map { _ in try TestWorld() }
        defer { worlds.forEach { $0.remove() } }
        let shared = worlds[0].state.path
        let daemons = try worlds.enumerated().map { index, world in
            try RunningDaemon(
                world: world,
                extra: [
                    "--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile,
                    "--host-name", "kitchen-\(index + 1)", "--state-dir", shared,
                ])
        }
        let logs = { daemons.map(\.log).joined(separator: "\n") }
        let photos = try TestImages.make((0..<24).map { TestImages.jpeg(worlds[0].root.path + "/photo-\($0).jpg", seed: 300 + $0) })
        // A burst on both hosts, and the backup on the first while they ingest.
        for (index, photo) in photos.enumerated() {
            try worlds[index % 2].drop("Pot \(index).jpg", photo)
        }
        let backup = worlds[0].root.appendingPathComponent("backup")
        let made = try Utensilctl.run(["backup", backup.path, "--json"], socket: Self.socket(worlds[0]), timeout: 120)
        #expect(made.status == 0, "\(made.output)\(made.errors)\n\(logs())")
        let summary = try #require(made.json, "\(made.output)")
        let backedUp = try #require(summary["utensils"] as? Int)
        try Poll.until(seconds: 180, "every drop of both hosts in the catalog", detail: logs) {
            (try? Utensilctl.run(["status", "--json"], socket: Self.socket(worlds[0])).json?["utensils"] as? Int) == photos.count
        }
        for daemon in daemons { #expect(try daemon.terminate() == 0, "\(daemon.log)") }
        #expect(FileManager.default.fileExists(atPath: backup.appendingPathComponent("utensils.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: backup.appendingPathComponent("backup.json").path))

        // Restored into an empty PostgreSQL catalog and into SQLite: the same utensils, each
        // original's bytes the same; `check` clean.
        let other = try PostgresServer()
        defer { other.remove() }
        for catalog in [["--catalog", other.tcpURL, "--catalog-password-file", other.passwordFile, "--host-name", "kitchen-9"], []] {
            let fresh = try TestWorld()
            defer { fresh.remove() }
            let restored = try UtensildProcess.run(UtensildProcess.arguments(for: fresh, extra: catalog) + ["restore", backup.path])
            #expect(restored.status == 0, "\(restored.output)\(restored.errors)")
            let daemon = try RunningDaemon(world: fresh, extra: catalog)
            let listed = try Self.listing(fresh)
            #expect(listed.count == backedUp, "\(listed.count) utensils restored of \(backedUp) backed up")
            let sources = Set(photos.map { sha256Hex($0) })
            #expect(listed.allSatisfy { sources.contains(String($0.split(separator: "|")[2])) }, "\(listed)")
            let check = try Utensilctl.run(["check", "--json"], socket: Self.socket(fresh), timeout: 120)
            #expect(check.status == 0 && check.json?["ok"] as? Bool == true, "\(check.output)\(check.errors)\n\(daemon.log)")
            #expect(try daemon.terminate() == 0, "\(daemon.log)")
        }
    }
}
