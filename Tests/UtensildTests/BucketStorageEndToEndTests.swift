import Foundation
import Glibc
import Testing
import UtensilStore
import UtensilTestSupport

/// utensild (the real binary) with `storage = "s3://…"` on a real SeaweedFS: `--check-config`
/// asks the server and says what is wrong, and a daemon keeps its photos in the bucket, not in
/// `state_dir`, and names them `s3://BUCKET/KEY`.
@Suite("A bucket as utensild's storage", .serialized, .tags(.spawnsProcesses))
struct BucketStorageEndToEndTests {
    private func checkConfig(_ world: TestWorld, _ flags: [String], environment: [String: String] = [:]) throws -> UtensildProcess.Result {
        try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--check-config"] + flags), environment: environment)
    }

    @Test func checkConfigAsksTheServerAndSaysWhatIsWrong() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world, keys) = (site.server, site.world, site.keys)
        let secret = server.credentials.secretAccessKey

        let good = try checkConfig(world, site.flags)
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output.contains("\nstorage = \"s3://\(server.bucket)/site\"\n"), "\(good.output)")
        #expect(good.output.contains("# storage: s3://\(server.bucket)/site/ at \(server.endpoint) answers and takes the keys"), "\(good.output)")
        #expect(good.output.contains("# storage: keys from storage_credentials_file \(keys)"), "\(good.output)")
        #expect(!(good.output + good.errors).contains(secret))

        // The systemd credential, then the environment, when no file is named.
        let credentials = world.root.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: keys, toPath: credentials.appendingPathComponent("storage-credentials").path)
        let systemd = try checkConfig(world, site.flags(keys: nil), environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        #expect(systemd.status == 0, "\(systemd.errors)")
        #expect(systemd.output.contains("# storage: keys from the systemd credential storage-credentials"), "\(systemd.output)")
        let environment = try checkConfig(world, site.flags(keys: nil), environment: [
            "AWS_ACCESS_KEY_ID": server.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret,
        ])
        #expect(environment.status == 0, "\(environment.errors)")
        #expect(environment.output.contains("# storage: keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"), "\(environment.output)")

        let wrongKeys = try site.writeKeys(name: "wrong-keys", secret: "not-the-secret")
        let halfKeys = world.root.appendingPathComponent("half-keys").path
        try Data("AWS_ACCESS_KEY_ID=\(server.credentials.accessKeyID)\n".utf8).write(to: URL(fileURLWithPath: halfKeys))
        let closedPort = try LoopbackSocket.freePort()
        let cases: [([String], String)] = [
            (site.flags(keys: wrongKeys), "refused our credentials"),
            (site.flags(bucket: "elsewhere", keys: keys), "There is no bucket elsewhere"),
            (site.flags(endpoint: "http://127.0.0.1:\(closedPort)", keys: keys), "does not answer"),
            (site.flags(keys: halfKeys), "has no AWS_SECRET_ACCESS_KEY=… line"),
        ]
        for (flags, sentence) in cases {
            let result = try checkConfig(world, flags)
            #expect(result.status == 78, "\(flags): \(result.output)")
            #expect(result.output.isEmpty)
            #expect(result.errors.hasPrefix("utensild: storage: "), "\(result.errors)")
            #expect(result.errors.contains(sentence), "\(flags): \(result.errors)")
            #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
            #expect(!result.errors.contains(secret))
        }
    }

    @Test func aDaemonKeepsItsPhotosInTheBucket() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let root = world.root.path
        let images = try TestImages.make([
            TestImages.jpeg(root + "/spoon", width: 1600, height: 1200, seed: 51),
            TestImages.png(root + "/fork", seed: 52),
        ])
        try world.drop("Knives/Spoon.jpg", images[0])
        try world.drop("Fork.png", images[1])
        let daemon = try RunningDaemon(world: world, extra: site.flags)
        let rows = try daemon.waitForCatalog("two utensils") { $0.count == 2 }
        // A drop leaves the inbox once its renditions are live (its row commits before that).
        let knives = world.inbox.appendingPathComponent("Knives")
        try daemon.waitUntil("the inbox to be empty") { world.files(in: world.inbox) == ["Knives"] && world.files(in: knives).isEmpty }
        #expect(world.files(in: world.originals).isEmpty && world.files(in: world.thumbnails).isEmpty, "nothing in state_dir")

        let client = try server.client()
        let objects = Set(try await client.list(prefix: "site/"))
        #expect(!objects.contains { $0.hasPrefix("site/staging/") }, "no staged object is left: \(objects)")
        let socket = world.root.appendingPathComponent("control.sock").path
        for (row, photo) in zip(rows.sorted { $0.name > $1.name }, images) {
            let id = row.id.uuidString
            let original = "site/originals/\(id).\(row.fileExtension)"
            #expect(objects.contains(original) && objects.contains("site/thumbnails/\(id).jpeg"), "\(objects)")
            #expect(Data(try await client.get(original)) == photo)
            let shown = try #require(try Utensilctl.run(["show", row.name, "--json"], socket: socket).json)
            #expect(shown["original"] as? String == "s3://\(server.bucket)/\(original)")
            #expect(shown["thumbnail"] as? String == "s3://\(server.bucket)/site/thumbnails/\(id).jpeg")
        }
        #expect(objects.allSatisfy { key in rows.contains { key.contains($0.id.uuidString) } }, "only these utensils' objects: \(objects)")
        let clean = try #require(try Utensilctl.run(["check", "--json"], socket: socket).json)
        #expect(clean["ok"] as? Bool == true, "\(clean)")

        // check lists through the bucket: a row whose thumbnail is gone; an object of no row
        // only once a minute old (a younger one may be a new utensil's, its commit in flight:
        // the store's check with its clock set ahead names it, StorageSweepTests).
        let fork = try #require(rows.first { $0.name == "Fork" })
        try await client.delete("site/thumbnails/\(fork.id.uuidString).jpeg")
        let stray = "site/originals/\(UUID().uuidString).jpg"
        try await client.put(stray, Array(images[0]))
        let found = try #require(try Utensilctl.run(["check", "--json"], socket: socket).json)
        #expect(found["ok"] as? Bool == false)
        #expect(found["rowsWithoutFiles"] as? [String] == [fork.id.uuidString], "\(found)")
        #expect(found["filesWithoutRows"] as? [String] == [], "\(found)")
        try await client.delete(stray)

        // A delete now removes the utensil's objects from the bucket.
        let spoon = try #require(rows.first { $0.name == "Spoon" })
        #expect(try Utensilctl.run(["delete", "--now", spoon.id.uuidString], socket: socket).status == 0)
        let left = try await client.list(prefix: "site/")
        #expect(!left.contains { $0.contains(spoon.id.uuidString) }, "\(left)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func theGalleryServesFromTheBucketAndThePurgeEmptiesIt() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let images = try TestImages.make([
            TestImages.jpeg(world.root.path + "/ladle", width: 900, height: 700, seed: 61),
            TestImages.png(world.root.path + "/colander", width: 80, height: 60, seed: 62),
        ])
        try world.drop("Ladle.jpg", images[0])
        try world.drop("Colander.png", images[1])
        let web = world.root.appendingPathComponent("web.sock").path
        // 0.00003 days is about 2.6 seconds.
        let daemon = try RunningDaemon(
            world: world, extra: site.flags + ["--web-listen", "unix:" + web, "--trash-days", "0.00003"])
        let rows = try daemon.waitForCatalog("two utensils") { $0.count == 2 }
        try daemon.waitUntil("the drops to leave the inbox, their files live") { world.files(in: world.inbox).isEmpty }
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: web) }
        let gallery = WebClient(socketPath: web)
        let client = try server.client()
        for (row, photo) in zip(rows.sorted { $0.name > $1.name }, images) {
            let id = row.id.uuidString
            let original = try gallery.get("/originals/\(id).\(row.fileExtension)")
            #expect(original.status == 200)
            #expect(original.body == photo)
            let ranged = try gallery.get("/originals/\(id).\(row.fileExtension)", headers: ["Range": "bytes=10-49"])
            #expect(ranged.status == 206)
            #expect(ranged.body == photo.subdata(in: 10..<50))
            #expect(ranged.headers["content-range"] == "bytes 10-49/\(photo.count)")
            let thumbnail = try gallery.get("/thumbnails/\(id).jpeg")
            #expect(thumbnail.status == 200)
            #expect(thumbnail.body == Data(try await client.get("site/thumbnails/\(id).jpeg")))
            let etag = try #require(thumbnail.headers["etag"])
            #expect(try gallery.get("/thumbnails/\(id).jpeg", headers: ["If-None-Match": etag]).status == 304)
            let preview = try gallery.get("/previews/\(id).jpeg")
            #expect(preview.status == 200)
            #expect(preview.body == Data(try await client.get("site/previews/\(id).jpeg")))
        }

        // The trash's purge removes the objects, only after the row is gone.
        let socket = world.root.appendingPathComponent("control.sock").path
        let ladle = try #require(rows.first { $0.name == "Ladle" })
        #expect(try Utensilctl.run(["delete", ladle.id.uuidString], socket: socket).status == 0)
        try daemon.waitForCatalog("the purge") { $0.count == 1 }
        let deadline = ContinuousClock.now + .seconds(60)
        var left = try await client.list(prefix: "site/")
        while left.contains(where: { $0.contains(ladle.id.uuidString) }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))  // Polling with a deadline.
            left = try await client.list(prefix: "site/")
        }
        #expect(!left.contains { $0.contains(ladle.id.uuidString) }, "\(left)")
        #expect(left.count == 4, "the colander's four objects stay: \(left)")
        #expect(try gallery.get("/originals/\(ladle.id.uuidString).jpg").status == 404)
        let check = try #require(try Utensilctl.run(["check", "--json"], socket: socket).json)
        #expect(check["ok"] as? Bool == true, "\(check)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aKillDuringABurstLosesAndDoublesNothing() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let count = 24
        let images = try TestImages.make((0..<count).map {
            TestImages.png(world.root.path + "/p\($0)", width: 120, height: 90, seed: 300 + $0)
        })
        for (index, image) in images.enumerated() { try world.drop("Whisk \(index).png", image) }
        let flags = site.flags
        let first = try RunningDaemon(world: world, extra: flags)
        try first.waitForCatalog("a few utensils, mid-burst") { $0.count >= 3 }
        first.kill()

        let second = try RunningDaemon(world: world, extra: flags)
        let rows = try second.waitForCatalog("every drop") { $0.count == count }
        try second.waitUntil("the inbox to be empty") { world.files(in: world.inbox).isEmpty }
        #expect(Set(rows.map(\.sha256)) == Set(images.map { sha256Hex($0) }), "each photo once")
        #expect(world.files(in: world.rejected).isEmpty, "nothing rejected: \(world.files(in: world.rejected))")
        let client = try server.client()
        let objects = try await client.list(prefix: "site/")
        let expected = Set(rows.flatMap { row in
            ["site/originals/\(row.id.uuidString).png", "site/thumbnails/\(row.id.uuidString).jpeg", "site/previews/\(row.id.uuidString).jpeg",
             "site/squares/\(row.id.uuidString).jpeg"]
        })
        // Besides one of each rendition per utensil, at most an object of a new utensil whose PUT
        // the kill cut off and the server finished after the restart's recovery looked: of no
        // row, for the sweeper once older than its grace.
        let live = Set(objects.filter { !$0.hasPrefix("site/staging/") })
        let ofNoRow = { (key: String) in !rows.contains { key.contains($0.id.uuidString) } }
        let cutOff = live.subtracting(expected)
        #expect(live.isSuperset(of: expected), "one of each rendition per utensil: \(expected.subtracting(live))")
        #expect(cutOff.allSatisfy(ofNoRow), "of no utensil: \(cutOff)")
        let socket = world.root.appendingPathComponent("control.sock").path
        let check = try #require(try Utensilctl.run(["check", "--json"], socket: socket).json)
        #expect(check["rowsWithoutFiles"] as? [String] == [] && check["stagedLeftovers"] as? [String] == [], "\(check)")
        let unreferenced = try #require(check["filesWithoutRows"] as? [String], "\(check)")
        #expect(Set(unreferenced).isSubset(of: cutOff.map { "s3://\(server.bucket)/\($0)" }), "only what the kill cut off, once a minute old: \(check)")
        #expect(try second.terminate() == 0)

        // An upload the kill cut off may still land in staging/ after the restart's recovery
        // looked (the server finishes a request whose client died): the next start removes it.
        let third = try RunningDaemon(world: world, extra: flags)
        #expect(try third.terminate() == 0)
        let staged = try await client.list(prefix: "site/staging/")
        #expect(staged.isEmpty, "nothing staged is left after a clean start: \(staged)")
        let after = Set(try await client.list(prefix: "site/"))
        #expect(after.isSuperset(of: expected) && after.subtracting(expected).allSatisfy(ofNoRow), "\(after.subtracting(expected))")
    }

    /// Killed between a new utensil's puts under its live keys and its row's commit, or between
    /// the commit and the delete of its marker: the next start undoes or finishes it at once,
    /// and the bucket holds the row's four objects and nothing else (not the killed drop's of
    /// no row, nor its marker).
    @Test(arguments: [FaultInjection.Step.filesDurable, .committed])
    func aKillAroundANewUtensilsCommitLeavesNothingAfterTheRestart(step: FaultInjection.Step) async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let image = try TestImages.make([TestImages.png(world.root.path + "/l", width: 120, height: 90, seed: 610)])[0]
        try world.drop("Ladle.png", image)
        let flags = site.flags
        let killed = try RunningDaemon(world: world, extra: flags, environment: ["UTENSIL_FAULT_KILL_AT": step.rawValue])
        try killed.waitUntil("utensild to kill itself at \(step.rawValue)") { !killed.process.isRunning }
        killed.process.waitUntilExit()
        #expect(killed.process.terminationReason == .uncaughtSignal && killed.process.terminationStatus == SIGKILL, "\(killed.log)")
        let client = try server.client()
        let marker = try await client.list(prefix: "site/staging/")
        #expect(marker.count == 1 && marker.allSatisfy { $0.hasSuffix(".new.png") }, "the operation's marker: \(marker)")
        #expect(try await client.list(prefix: "site/originals/").count == 1, "the original under its live key")

        let restarted = try RunningDaemon(world: world, extra: flags)
        let rows = try restarted.waitForCatalog("the drop") { $0.count == 1 }
        try restarted.waitUntil("the inbox to be empty") { world.files(in: world.inbox).isEmpty }
        let id = rows[0].id.uuidString
        let expected = ["site/originals/\(id).png", "site/previews/\(id).jpeg", "site/squares/\(id).jpeg", "site/thumbnails/\(id).jpeg"]
        #expect(try await client.list(prefix: "site/").sorted() == expected)
        let socket = world.root.appendingPathComponent("control.sock").path
        let check = try #require(try Utensilctl.run(["check", "--json"], socket: socket).json)
        #expect(check["ok"] as? Bool == true, "\(check)")
        #expect(try restarted.terminate() == 0)
    }

    @Test func aStorageOutageDelaysDropsAndReadyzSaysSo() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let images = try TestImages.make((0..<2).map { TestImages.png(world.root.path + "/o\($0)", width: 90, height: 60, seed: 400 + $0) })
        try world.drop("Before.png", images[0])
        let web = world.root.appendingPathComponent("web.sock").path
        let daemon = try RunningDaemon(world: world, extra: site.flags + ["--web-listen", "unix:" + web])
        try daemon.waitForUtensils(1)
        try daemon.waitUntil("the web socket") { FileManager.default.fileExists(atPath: web) }
        let gallery = WebClient(socketPath: web)
        #expect(try gallery.get("/readyz").status == 200)
        // The row commits before the files are put in place and the drop leaves the inbox.
        try daemon.waitUntil("the first drop to leave the inbox") { world.files(in: world.inbox).isEmpty }

        server.stop()
        try world.drop("During.png", images[1])
        var notReady = try gallery.get("/readyz")
        try daemon.waitUntil(seconds: 30, "/readyz to say the storage does not answer") {
            notReady = (try? gallery.get("/readyz")) ?? notReady
            return notReady.status == 503
        }
        #expect(notReady.text.contains("storage"), "\(notReady.text)")
        #expect(notReady.text.contains("not answering since"), "\(notReady.text)")
        try daemon.waitUntil(seconds: 60, "a try of the drop") { daemon.log.contains("During.png") }
        #expect(world.files(in: world.rejected).isEmpty, "a storage outage rejects nothing")
        #expect(world.files(in: world.inbox) == ["During.png"])

        try await server.start()
        try daemon.waitForCatalog(seconds: 300, "the drop once the storage is back") { $0.count == 2 }
        try daemon.waitUntil("the inbox to be empty") { world.files(in: world.inbox).isEmpty }
        try daemon.waitUntil(seconds: 30, "/readyz to be ready again") { (try? gallery.get("/readyz"))?.status == 200 }
        #expect(world.files(in: world.rejected).isEmpty)
        let socket = world.root.appendingPathComponent("control.sock").path
        let check = try #require(try Utensilctl.run(["check", "--json"], socket: socket).json)
        #expect(check["ok"] as? Bool == true, "\(check)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aBackupCarriesTheBucketsObjects() async throws {
        let site = try await BucketSite()
        defer { site.remove() }
        let (server, world) = (site.server, site.world)
        let images = try TestImages.make((0..<3).map { TestImages.png(world.root.path + "/b\($0)", width: 100, height: 70, seed: 500 + $0) })
        for (index, image) in images.enumerated() { try world.drop("Grater \(index).png", image) }
        let daemon = try RunningDaemon(world: world, extra: site.flags)
        let rows = try daemon.waitForCatalog("three utensils") { $0.count == 3 }
        let socket = world.root.appendingPathComponent("control.sock").path
        let backup = world.root.appendingPathComponent("backup")
        let run = try Utensilctl.run(["backup", "--json", backup.path], socket: socket)
        #expect(run.status == 0, "\(run.errors)\n\(daemon.log)")
        #expect(try daemon.terminate() == 0)

        let client = try server.client()
        for row in rows {
            for (folder, name) in [
                ("originals", "\(row.id.uuidString).png"), ("thumbnails", "\(row.id.uuidString).jpeg"), ("previews", "\(row.id.uuidString).jpeg"),
            ] {
                let copy = try Data(contentsOf: backup.appendingPathComponent(folder).appendingPathComponent(name))
                #expect(copy == Data(try await client.get("site/\(folder)/\(name)")), "\(folder)/\(name)")
            }
        }
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: backup.appendingPathComponent("backup.json"))) as? [String: Any])
        #expect((manifest["files"] as? [Any])?.count == 12, "\(manifest)")  // Four renditions of three utensils.
        #expect((manifest["missing"] as? [Any])?.isEmpty == true, "\(manifest)")
    }
}
