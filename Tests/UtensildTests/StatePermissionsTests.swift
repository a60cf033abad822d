import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// The state folder is the daemon's alone: `0700` folders, `0600` files, tightened at start
/// where an older version left them looser; another user can read neither catalog nor photos.
@Suite("State folder permissions", .serialized, .tags(.spawnsProcesses))
struct StatePermissionsTests {
    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
    }

    @Test func theStateFolderIsPrivateToTheDaemon() throws {
        let world = try TestWorld()
        defer { world.remove() }
        // As an older utensild left it: group-readable folders.
        #expect(chmod(world.root.path, 0o755) == 0 && chmod(world.state.path, 0o750) == 0)
        try FileManager.default.createDirectory(at: world.originals, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/p", width: 64, height: 48, seed: 91)])[0]
        try world.drop("Ladle.jpg", photo)
        try world.drop("Broken.jpg", Data("junk".utf8))
        let daemon = try RunningDaemon(world: world)
        let rows = try daemon.waitForCatalog("the ladle") { $0.count == 1 }
        try daemon.waitUntil("the rejection") { world.files(in: world.rejected).contains("Broken.jpg.error.json") }
        let id = try #require(rows.first?.id.uuidString)

        let state = world.state.path
        for folder in [state, state + "/originals", state + "/thumbnails"] {
            #expect(Self.mode(folder) == 0o700, "\(folder): \(String(Self.mode(folder) ?? 0, radix: 8))")
        }
        for file in ["originals/\(id).jpg", "thumbnails/\(id).jpeg", "utensils.sqlite", "utensils.sqlite-wal", "utensils.sqlite-shm",
                     "utensild.lock", "decoding.slots"] {
            #expect(Self.mode(state + "/" + file) == 0o600, "\(file): \(String(Self.mode(state + "/" + file) ?? 0, radix: 8))")
        }
        #expect(daemon.log.contains("private to utensild"), "the tightening is logged\n\(daemon.log)")

        // Another user reads the rejection's sidecar (the shared folders are not touched), but
        // neither the catalog nor a stored photo.
        func readable(_ path: String) throws -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/cat", path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        #expect(try readable(world.rejected.path + "/Broken.jpg.error.json"))
        #expect(try !readable(state + "/utensils.sqlite"))
        #expect(try !readable(state + "/originals/\(id).jpg"))
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: [photo, Data("junk".utf8)])
    }
}
