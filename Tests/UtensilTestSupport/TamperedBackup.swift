import Foundation
import Testing
import UtensilStore

/// A backup whose catalog someone changed: a copy of a real backup folder, its
/// `utensils.sqlite` changed by SQL through the sqlite3 CLI, and the catalog's size and
/// checksum in `backup.json` made to match, so that only what the catalog holds can refuse it.
public enum TamperedBackup {
    /// A copy of `backup` named `name` beside it, `sql` run on its catalog.
    public static func make(from backup: URL, _ sql: String, as name: String) throws -> URL {
        let copy = backup.deletingLastPathComponent().appendingPathComponent(name)
        try FileManager.default.copyItem(at: backup, to: copy)
        let catalog = copy.appendingPathComponent(BackupManifest.catalogFileName)
        try run(sql, on: catalog)
        let manifestURL = copy.appendingPathComponent(BackupManifest.fileName)
        var manifest = try JSONDecoder().decode(BackupManifest.self, from: Data(contentsOf: manifestURL))
        let bytes = try Data(contentsOf: catalog)
        manifest.catalog.bytes = Int64(bytes.count)
        manifest.catalog.sha256 = sha256Hex(bytes)
        try JSONEncoder().encode(manifest).write(to: manifestURL)
        return copy
    }

    /// Runs `sql` on `database` with the sqlite3 CLI.
    public static func run(_ sql: String, on database: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database.path, sql]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sqlite3 \(sql): \(said)")
    }
}
