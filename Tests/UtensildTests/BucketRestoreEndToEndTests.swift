import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilStore
import UtensilTestSupport

/// `utensild restore` with `storage = "s3://…"` on a real SeaweedFS (keys allowed only to read,
/// list and write): a site on local folders moves into the bucket and, backed up there, back
/// onto local folders with every file's bytes and SHA-256 equal; hostile or damaged backups
/// are refused with nothing written to the bucket.
@Suite("Restoring into a bucket and out of it", .serialized, .tags(.spawnsProcesses))
struct BucketRestoreEndToEndTests {
    private static func socket(_ world: TestWorld) -> String { world.root.appendingPathComponent("control.sock").path }

    /// `utensild … restore BACKUP` on `world`'s folders, with `flags` (a bucket's, or none).
    private static func restore(_ backup: URL, into world: TestWorld, _ flags: [String]) throws -> UtensildProcess.Result {
        try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: flags) + ["restore", backup.path])
    }

    private static func manifest(_ backup: URL) throws -> BackupManifest {
        try JSONDecoder().decode(BackupManifest.self, from: Data(contentsOf: backup.appendingPathComponent(BackupManifest.fileName)))
    }

    /// A site on local folders (a photo in a category, a PNG, one in the trash, a favorite),
    /// backed up by the real daemon; its backup folder and the backup's manifest.
    private static func localSiteBackup(in world: TestWorld) throws -> (folder: URL, manifest: BackupManifest) {
        let root = world.root.path
        let photos = try TestImages.make([
            TestImages.jpeg(root + "/knife", width: 1400, height: 1000, seed: 810),
            TestImages.png(root + "/colander", width: 200, height: 150, seed: 811),
            TestImages.jpeg(root + "/ladle", width: 640, height: 480, seed: 812),
            TestImages.jpeg(root + "/whisk", width: 300, height: 500, seed: 813),
        ])
        for (name, photo) in zip(["Knives/Chef Knife.jpg", "Colander.png", "Ladle.jpg", "Whisk.jpg"], photos) {
            try world.drop(name, photo)
        }
        let daemon = try RunningDaemon(world: world)
        let rows = try daemon.waitForCatalog("four utensils") { $0.count == 4 }
        let whisk = try #require(rows.first { $0.name == "Whisk" })
        #expect(try Utensilctl.run(["delete", whisk.id.uuidString], socket: socket(world)).status == 0)
        let ladle = try #require(rows.first { $0.name == "Ladle" })
        #expect(try Utensilctl.run(["favorite", ladle.id.uuidString], socket: socket(world)).status == 0)
        let backup = world.root.appendingPathComponent("local-backup")
        let made = try Utensilctl.run(["backup", backup.path], socket: socket(world))
        #expect(made.status == 0, "\(made.errors)\n\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
        return (backup, try manifest(backup))
    }

    /// Every object under the site's prefix, staged ones included.
    private static func objects(_ server: SeaweedServer) async throws -> Set<String> {
        Set(try await server.client().list(prefix: "site/"))
    }

    @Test func aSiteMovesIntoABucketAndBackOntoLocalFolders() async throws {
        let site = try await BucketSite(actions: ["Read", "List", "Write"])
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let flags = site.flags
        let (backup, listed) = try Self.localSiteBackup(in: world)
        let snapshot = try CatalogFile.inspect(path: backup.appendingPathComponent(BackupManifest.catalogFileName).path, rules: BackupRowRules())
        // Every rendition of four utensils (one in the trash).
        let files = listed.files.count
        #expect(files == 4 * BackupFolder.all.count && listed.counts.trash == 1, "\(listed)")

        // Local folders → the bucket: every file an object of the same bytes, none in state_dir.
        let onBucket = try TestWorld()
        defer { onBucket.remove() }
        let restored = try Self.restore(backup, into: onBucket, flags)
        #expect(restored.status == 0, "\(restored.errors)")
        #expect(
            restored.output.contains("Restored 3 utensils (1 in the trash, 1 categories) and \(files) files")
                && restored.output.contains("into \(onBucket.state.path) and the storage s3://\(server.bucket)/site."),
            "\(restored.output)")
        let client = try server.client()
        #expect(try await Self.objects(server) == Set(listed.files.map { "site/" + $0.path }), "nothing staged is left, nothing else is there")
        for file in listed.files {
            let object = Data(try await client.get("site/" + file.path))
            #expect(object == (try Data(contentsOf: backup.appendingPathComponent(file.path))), "\(file.path)")
            #expect(sha256Hex(object) == file.sha256, "\(file.path)")
        }
        for utensil in snapshot.utensils {
            let original = Data(try await client.get("site/originals/\(utensil.id.uuidString).\(utensil.fileExtension)"))
            #expect(sha256Hex(original) == utensil.sha256)
        }
        for folder in [onBucket.originals, onBucket.thumbnails, onBucket.previews] { #expect(onBucket.files(in: folder).isEmpty) }

        // The daemon on the bucket serves the restored site: check clean, the trash and favorite kept.
        let daemon = try RunningDaemon(world: onBucket, extra: flags)
        let rows = try daemon.waitForCatalog("the restored catalog, the trash included") { _ in true }
        #expect(Set(rows.map(\.id)) == Set(snapshot.utensils.map(\.id)))
        let check = try Utensilctl.run(["check", "--json"], socket: Self.socket(onBucket))
        #expect(check.json?["ok"] as? Bool == true, "\(check.output)\(check.errors)")
        let ladle = try #require(rows.first { $0.name == "Ladle" })
        let shown = try #require(try Utensilctl.run(["show", ladle.id.uuidString, "--json"], socket: Self.socket(onBucket)).json)
        #expect(shown["original"] as? String == "s3://\(server.bucket)/site/originals/\(ladle.id.uuidString).jpg", "\(shown)")
        let favorites = try Utensilctl.run(["list", "--favorites", "--json"], socket: Self.socket(onBucket))
        #expect((favorites.json?["utensils"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ladle.id.uuidString])
        let trash = try Utensilctl.run(["trash", "--json"], socket: Self.socket(onBucket))
        #expect(trash.output.contains(try #require(snapshot.utensils.first { $0.trashed }).id.uuidString), "\(trash.output)")

        // Backed up on the bucket, restored onto local folders: the same bytes again.
        let bucketBackup = onBucket.root.appendingPathComponent("bucket-backup")
        let made = try Utensilctl.run(["backup", bucketBackup.path], socket: Self.socket(onBucket))
        #expect(made.status == 0, "\(made.errors)\n\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
        let local = try TestWorld()
        defer { local.remove() }
        let back = try Self.restore(bucketBackup, into: local, [])
        #expect(back.status == 0, "\(back.errors)")
        #expect(back.output.contains("Restored 3 utensils (1 in the trash, 1 categories) and \(files) files"), "\(back.output)")
        for file in listed.files {
            let copy = try Data(contentsOf: local.state.appendingPathComponent(file.path))
            #expect(sha256Hex(copy) == file.sha256, "\(file.path)")
        }
        let again = try RunningDaemon(world: local)
        let localRows = try again.waitForCatalog("the catalog restored from the bucket's backup") { _ in true }
        #expect(Set(localRows.map(\.id)) == Set(rows.map(\.id)))
        let localCheck = try Utensilctl.run(["check", "--json"], socket: Self.socket(local))
        #expect(localCheck.json?["ok"] as? Bool == true, "\(localCheck.output)\(localCheck.errors)")
        #expect(try again.terminate() == 0)

        // A second restore into the bucket, which now holds a site, is refused and writes nothing.
        let second = try TestWorld()
        defer { second.remove() }
        let before = try await Self.objects(server)
        let refused = try Self.restore(backup, into: second, flags)
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.errors.contains("already holds \(files) files of utensils; a backup is restored only into an empty storage"), "\(refused.errors)")
        #expect(try await Self.objects(server) == before)
    }

    @Test func aSiteMovesIntoPostgreSQLAndABucketAtOnceAndAFailedLoadLeavesNothing() async throws {
        let site = try await BucketSite(actions: ["Read", "List", "Write"])
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let (backup, listed) = try Self.localSiteBackup(in: world)
        let postgres = try PostgresServer()
        defer { postgres.remove() }
        let flags = site.flags
            + ["--catalog", postgres.tcpURL, "--catalog-password-file", postgres.passwordFile, "--host-name", "kitchen-2"]
        let fresh = try TestWorld()
        defer { fresh.remove() }

        // A catalog that refuses the rows (the schema made by a first restore of no backup, then
        // its role's INSERT revoked): the objects were staged, and are removed again.
        let nothing = try Self.restore(world.root.appendingPathComponent("no-such-backup"), into: fresh, flags)
        #expect(nothing.status == 1 && nothing.errors.contains("There is no folder"), "\(nothing.errors)")
        try postgres.superuserSQL("REVOKE INSERT ON utensils FROM \(postgres.role)", database: postgres.database)
        let failed = try Self.restore(backup, into: fresh, flags)
        #expect(failed.status == 1, "\(failed.output)\(failed.errors)")
        #expect(failed.errors.contains("could not be loaded into the catalog") && failed.errors.contains("nothing was installed"), "\(failed.errors)")
        #expect(try await Self.objects(server).isEmpty, "nothing is left in the bucket, staged or live")
        #expect(try postgres.superuserSQL("SELECT count(*) FROM utensils", database: postgres.database) == "0")
        try postgres.superuserSQL("GRANT INSERT ON utensils TO \(postgres.role)", database: postgres.database)

        // Then for real: the rows in PostgreSQL, the objects in the bucket, nothing in state_dir.
        let restored = try Self.restore(backup, into: fresh, flags)
        #expect(restored.status == 0, "\(restored.output)\(restored.errors)")
        #expect(restored.output.contains("into the catalog \(postgres.tcpURL) and the storage s3://\(server.bucket)/site."), "\(restored.output)")
        #expect(try await Self.objects(server) == Set(listed.files.map { "site/" + $0.path }))
        #expect(try postgres.superuserSQL("SELECT count(*) FROM utensils", database: postgres.database) == "4")
        for folder in [fresh.originals, fresh.thumbnails, fresh.previews] { #expect(fresh.files(in: folder).isEmpty) }
        let daemon = try RunningDaemon(world: fresh, extra: flags)
        let check = try Utensilctl.run(["check", "--json"], socket: Self.socket(fresh), timeout: 120)
        #expect(check.json?["ok"] as? Bool == true, "\(check.output)\(check.errors)\n\(daemon.log)")
        let list = try Utensilctl.run(["list", "--json"], socket: Self.socket(fresh))
        #expect((list.json?["utensils"] as? [[String: Any]])?.count == 3, "\(list.output)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }

    @Test func hostileAndDamagedBackupsWriteNothingToTheBucket() async throws {
        let site = try await BucketSite(actions: ["Read", "List", "Write"])
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let flags = site.flags
        let (backup, listed) = try Self.localSiteBackup(in: world)
        let originals = listed.files.filter { $0.path.hasPrefix("originals/") }
        let lastOriginal = try #require(originals.last)
        let thumbnail = try #require(listed.files.first { $0.path.hasPrefix("thumbnails/") })
        let outside = world.root.appendingPathComponent("outside.jpeg")
        try Data(try Data(contentsOf: backup.appendingPathComponent(thumbnail.path)).reversed()).write(to: outside)

        func rewrite(_ copy: URL, _ change: (inout BackupManifest) throws -> Void) throws {
            var manifest = listed
            try change(&manifest)
            try JSONEncoder().encode(manifest).write(to: copy.appendingPathComponent(BackupManifest.fileName))
        }
        let damages: [(what: String, words: [String], damage: (URL) throws -> Void)] = [
            ("an extension that climbs out of originals/", ["has the extension \"jpg/../../../etc/hostname\""], { copy in
                try TamperedBackup.run(
                    "UPDATE utensil SET extension = 'jpg/../../../etc/hostname' WHERE id = (SELECT min(id) FROM utensil)",
                    on: copy.appendingPathComponent(BackupManifest.catalogFileName))
                let bytes = try Data(contentsOf: copy.appendingPathComponent(BackupManifest.catalogFileName))
                try rewrite(copy) {
                    $0.catalog.bytes = Int64(bytes.count)
                    $0.catalog.sha256 = sha256Hex(bytes)
                }
            }),
            ("a thumbnail that is a link out of the backup, its checksum made to match", [thumbnail.path, "missing"], { copy in
                let file = copy.appendingPathComponent(thumbnail.path)
                try FileManager.default.removeItem(at: file)
                try FileManager.default.createSymbolicLink(at: file, withDestinationURL: outside)
                let bytes = try Data(contentsOf: outside)
                try rewrite(copy) { manifest in
                    let index = try #require(manifest.files.firstIndex { $0.path == thumbnail.path })
                    manifest.files[index].bytes = Int64(bytes.count)
                    manifest.files[index].sha256 = sha256Hex(bytes)
                }
            }),
            ("a flipped byte in the last original", [lastOriginal.path, "damaged"], { copy in
                let url = copy.appendingPathComponent(lastOriginal.path)
                var bytes = try Data(contentsOf: url)
                bytes[bytes.count / 2] ^= 0x01
                try bytes.write(to: url)
            }),
            ("a file backup.json lists that no utensil has", ["originals/stray.jpg", "which no utensil of the catalog has"], { copy in
                try rewrite(copy) { manifest in
                    var stray = try #require(manifest.files.first)
                    stray.path = "originals/stray.jpg"
                    manifest.files.append(stray)
                    manifest.counts.files += 1
                }
            }),
        ]
        for (index, (what, words, damage)) in damages.enumerated() {
            let copy = world.root.appendingPathComponent("hostile-\(index)")
            try FileManager.default.copyItem(at: backup, to: copy)
            try damage(copy)
            let fresh = try TestWorld()
            defer { fresh.remove() }
            let refused = try Self.restore(copy, into: fresh, flags)
            #expect(refused.status == 1, "\(what): \(refused.output)")
            #expect(refused.errors.split(separator: "\n").count == 1, "\(what): \(refused.errors)")
            for word in words { #expect(refused.errors.contains(word), "\(what): \(refused.errors)") }
            #expect(try await Self.objects(server).isEmpty, "\(what): nothing is written to the bucket")
            #expect(!FileManager.default.fileExists(atPath: fresh.state.appendingPathComponent("utensils.sqlite").path), "\(what)")
            #expect(!fresh.files(in: fresh.state).contains { $0.hasPrefix(".restoring-") }, "\(what): \(fresh.files(in: fresh.state))")
        }

        // Keys that cannot be read are a configuration to fix (78); keys the server refuses are
        // named (1). Nothing is written either way.
        let fresh = try TestWorld()
        defer { fresh.remove() }
        let halfKeys = world.root.appendingPathComponent("half-keys")
        try Data("AWS_ACCESS_KEY_ID=\(server.credentials.accessKeyID)\n".utf8).write(to: halfKeys)
        let unreadable = try Self.restore(backup, into: fresh, site.flags(keys: halfKeys.path))
        #expect(unreadable.status == 78, "\(unreadable.output)\(unreadable.errors)")
        #expect(unreadable.errors.contains("has no AWS_SECRET_ACCESS_KEY=… line"), "\(unreadable.errors)")
        let wrongKeys = try site.writeKeys(name: "wrong-keys", secret: "not-the-secret")
        let refused = try Self.restore(backup, into: fresh, site.flags(keys: wrongKeys))
        #expect(refused.status == 1, "\(refused.output)\(refused.errors)")
        #expect(refused.errors.contains("could not be restored into the storage s3://\(server.bucket)/site")
            && refused.errors.contains("refused our credentials"), "\(refused.errors)")
        #expect(try await Self.objects(server).isEmpty)

        // The intact backup still restores into the bucket afterwards.
        let intact = try Self.restore(backup, into: fresh, flags)
        #expect(intact.status == 0, "\(intact.errors)")
        #expect(try await Self.objects(server) == Set(listed.files.map { "site/" + $0.path }))
    }
}
