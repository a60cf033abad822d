import Foundation
import Testing
import UtensilStorageS3
import UtensilStore
import UtensilTestSupport

/// Three hosts that share no folder at all, only the catalog and a bucket: three utensild
/// instances (`kitchen-1` … `kitchen-3`), each in a network namespace of its own with its own
/// inbox, `rejected/`, state folder, control socket and gallery, reaching one real PostgreSQL 15
/// and one real SeaweedFS bucket (`storage = "s3://utensils/site"`, keys from a credentials
/// file) over its virtual link (``KitchenLab/sharingABucket(hosts:)``).
///
/// A first burst drops distinct photos on the three hosts, the same name on all three at once
/// (a different photo on each) and the same photo under three names on three hosts;
/// `kitchen-3`, given larger photos, is killed with SIGKILL mid-upload (its fault hook kills it
/// once a batch's objects are in the bucket, a new utensil's under their live keys, and before
/// their rows commit), and started again. A second burst does the same while the storage server is
/// stopped (every host's `/readyz` says so) and started again; a last drop on each host
/// follows. Then `kitchen-3` is killed mid-upload once more and left dead while the sweeper,
/// its clock set past the hour's grace, finishes or removes what it left (nothing staged and
/// no object of no row stays, and no object of a utensil goes), and started again. Then every drop is exactly one utensil or one rejection with
/// the sidecar the duplicate policies call for (``DropLedger``): nothing lost, nothing
/// doubled, nothing rejected for the outage; every host's `list --json` is the same; every
/// host's gallery serves every utensil's original (its SHA-256 the catalog's) and thumbnail
/// (the bucket's bytes); after a last sweep past the grace, the bucket holds each utensil's
/// original, thumbnail, grid square and preview, nothing staged and nothing of no utensil; `check` is
/// clean on every host.
@Suite(.serialized, .tags(.spawnsProcesses)) struct NoSharedFolderTests {
    @Test func nothingIsLostDoubledOrLeftThroughKillsAStorageOutageAndTheSweeper() async throws {
        let kitchens = try await KitchenLab.sharingABucket(hosts: 3)
        defer { kitchens.remove() }
        let bucket = try #require(kitchens.bucket)
        let client = try bucket.client(timeoutSeconds: 10)
        let hostNames = (0..<3).map { kitchens.hostName($0) }
        let root = kitchens.worlds[0].root
        let photos = try KitchenLab.photos(36, in: root, seed: 700)
        let large = try KitchenLab.photos(14, in: root, width: 1600, height: 1200, seed: 800)
        var ledger = DropLedger()

        // The first burst; kitchen-3 killed mid-upload.
        var burst = DropLedger()
        burst.sameName("Ladle", on: [0, 1, 2], Array(photos[0..<3]))
        burst.samePhoto(photos[3], as: [(0, "Spatula"), (1, "Turner"), (2, "Fish Slice")])
        for index in 0..<8 { burst.plain(2, "Pot \(index + 1)", large[index]) }
        for index in 0..<10 { burst.plain(index % 2, "Spoon \(index + 1)", photos[4 + index]) }
        try Self.armKillMidUpload(2, of: kitchens)
        try kitchens.drop(burst)
        _ = try await Self.awaitKillMidUpload(2, of: kitchens, client)
        try kitchens.restart(2)
        ledger.append(burst)
        try kitchens.waitUntilSettled(ledger)

        // The second burst; the storage server stopped while the hosts work through it, the
        // rest dropped while it is down, and started again once every host says it is down.
        burst = DropLedger()
        for index in 0..<12 { burst.plain(index % 3, "Fork \(index + 1)", photos[14 + index]) }
        burst.sameName("Whisk", on: [2, 0, 1], Array(photos[26..<29]))
        burst.samePhoto(photos[29], as: [(1, "Colander"), (2, "Sieve")])
        let beforeOutage = 9
        try kitchens.drop(burst.drops.prefix(beforeOutage))
        try await Poll.eventually(seconds: 60, "the hosts to start on the second burst", every: .milliseconds(5), detail: { kitchens.logs }) {
            kitchens.inboxCounts.reduce(0, +) < beforeOutage
        }
        let leftAtStop = kitchens.inboxCounts.reduce(0, +)
        bucket.stop()
        try kitchens.drop(burst.drops.dropFirst(beforeOutage))
        var readiness = [String](repeating: "", count: 3)
        try await Poll.eventually(seconds: 60, "every host's /readyz to say the storage does not answer", every: .milliseconds(200), detail: { "\(readiness)\n\(kitchens.logs)" }) {
            for host in 0..<3 {
                let reply = try? kitchens.gallery(host).get("/readyz")
                readiness[host] = reply.map { "\($0.status) \($0.text)" } ?? "no answer"
            }
            return readiness.allSatisfy { $0.hasPrefix("503") && $0.contains("storage") }
        }
        let waiting = kitchens.inboxCounts.reduce(0, +)
        #expect(waiting > 0, "some drops wait for the storage")
        try await bucket.start()
        print("SeaweedFS stopped with \(leftAtStop) of \(beforeOutage) drops still in the inboxes; \(waiting) waited for it")
        ledger.append(burst)
        burst = DropLedger()
        for host in 0..<3 { burst.plain(host, "Tongs \(host + 1)", photos[30 + host]) }
        try kitchens.drop(burst)
        ledger.append(burst)
        try kitchens.waitUntilSettled(ledger)
        for host in 0..<3 {
            try await Poll.eventually(seconds: 30, "\(hostNames[host])'s /readyz to be ready again", detail: { kitchens.logs }) {
                (try? kitchens.gallery(host).get("/readyz"))?.status == 200
            }
        }

        // kitchen-3 killed mid-upload again (the only host at work), and left dead: the
        // sweeper (run as it runs an hour later) finishes or removes what it left; then it is
        // started again and takes what is left in its inbox.
        burst = DropLedger()
        for index in 0..<6 { burst.plain(2, "Pan \(index + 1)", large[8 + index]) }
        try Self.armKillMidUpload(2, of: kitchens)
        try kitchens.drop(burst)
        let cutOff = try await Self.awaitKillMidUpload(2, of: kitchens, client)
        let sweep = try await Self.sweepPastTheGrace(kitchens, bucket)
        print("the sweep finished \(sweep.rolledForward.count) and undid \(sweep.discarded.count) operations kitchen-3 left, removed \(sweep.orphansRemoved.count) objects")
        #expect(!sweep.anotherHostSweeps && sweep.problems.isEmpty, "\(sweep)")
        // A new utensil's objects of no row go with its marker; any other (an upload that landed
        // after its marker went) as an orphan.
        let undone = sweep.discarded.map(\.operation.utensil.uuidString)
        #expect(cutOff.isDisjoint(with: try await client.list(prefix: KitchenLab.bucketPrefix)), "what the kill left goes: \(sweep)")
        #expect(cutOff.allSatisfy { key in
            sweep.orphansRemoved.contains("s3://\(bucket.bucket)/\(key)") || undone.contains { key.contains($0) }
        }, "\(sweep)")
        let rowIDs = try Self.rowIDs(kitchens)
        #expect(sweep.orphansRemoved.allSatisfy { url in !rowIDs.contains { url.contains($0) } }, "no utensil's object is an orphan: \(sweep.orphansRemoved)")
        // Another host's undone operation can only be one of no row: a new utensil's marker
        // whose removal the storage's outage cut off (the sweep runs as an hour later would).
        #expect(sweep.rolledForward.allSatisfy { $0.host == hostNames[2] }, "\(sweep)")
        #expect(sweep.discarded.allSatisfy { $0.host == hostNames[2] || !rowIDs.contains($0.operation.utensil.uuidString) }, "\(sweep)")
        let stagedAfterSweep = try await client.list(prefix: KitchenLab.bucketPrefix + "staging/")
        #expect(stagedAfterSweep.isEmpty, "the sweep left \(stagedAfterSweep)")
        try kitchens.restart(2)
        ledger.append(burst)
        try kitchens.waitUntilSettled(ledger)

        // Every host lists the same utensils, and they are exactly what the drops call for.
        let lists = try (0..<3).map { host in
            try Utensilctl.run(["list", "--limit", "1000", "--json"], socket: kitchens.socket(host), timeout: 90)
        }
        for (host, list) in lists.enumerated() {
            #expect(list.status == 0, "\(hostNames[host]): \(list.errors)")
            #expect(list.output == lists[0].output, "\(hostNames[host]) lists otherwise than kitchen-1:\n\(list.output)\n\(lists[0].output)")
        }
        let page = try #require(lists[0].json, "\(lists[0].output)")
        #expect(page["next"] is NSNull, "\(lists[0].output)")
        let listed = try #require(page["utensils"] as? [[String: Any]], "\(lists[0].output)")
        let utensils = try listed.map { try Self.served($0, by: kitchens.gallery(0)) }
        let rejected = kitchens.worlds.map(DropLedger.rejections(in:))
        let problems = ledger.problems(utensils: utensils, hostNames: hostNames, rejected: rejected)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\n\(kitchens.logs)")
        #expect(utensils.count == ledger.expectedUtensils)
        #expect(rejected.map(\.count).reduce(0, +) == ledger.expectedRejections, "\(rejected)")

        // Every host serves every utensil's original and thumbnail, the same bytes.
        let catalogued = try kitchens.server.superuserSQL(
            "SELECT id || ' ' || extension || ' ' || sha256 FROM utensils ORDER BY id", database: kitchens.server.database)
        let rows = catalogued.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count == utensils.count, "\(catalogued)")
        var expectedObjects: Set<String> = []
        for row in rows where row.count == 3 {
            let (id, fileExtension, sha256) = (row[0].uppercased(), row[1], row[2])
            let thumbnail = Data(try await client.get(KitchenLab.bucketPrefix + "thumbnails/\(id).jpeg"))
            for host in 0..<3 {
                let gallery = kitchens.gallery(host)
                let original = try gallery.get("/originals/\(id).\(fileExtension)")
                #expect(original.status == 200 && sha256Hex(original.body) == sha256, "\(hostNames[host]) serves \(id)'s original otherwise")
                let served = try gallery.get("/thumbnails/\(id).jpeg")
                #expect(served.status == 200 && served.body == thumbnail, "\(hostNames[host]) serves \(id)'s thumbnail otherwise")
            }
            expectedObjects.formUnion(["originals/\(id).\(fileExtension)", "thumbnails/\(id).jpeg", "squares/\(id).jpeg", "previews/\(id).jpeg"].map { KitchenLab.bucketPrefix + $0 })
        }

        // After a last sweep past the grace, the bucket holds each utensil's original,
        // thumbnail, grid square and preview, nothing staged and nothing of no utensil.
        let lastSweep = try await Self.sweepPastTheGrace(kitchens, bucket)
        #expect(!lastSweep.anotherHostSweeps && lastSweep.problems.isEmpty && lastSweep.orphansRemoved.isEmpty, "\(lastSweep)")
        let objects = Set(try await client.list(prefix: KitchenLab.bucketPrefix))
        #expect(!objects.contains { $0.hasPrefix(KitchenLab.bucketPrefix + "staging/") }, "\(objects.sorted())")
        let live = objects.filter { !$0.hasPrefix(KitchenLab.bucketPrefix + "staging/") }
        #expect(expectedObjects.isSubset(of: live), "missing: \(expectedObjects.subtracting(live).sorted())")
        let ids = Set(rows.map { $0[0].uppercased() })
        let strays = live.filter { key in !ids.contains { key.contains($0) } }
        #expect(strays.isEmpty, "objects of no utensil: \(strays.sorted())")
        for host in 0..<3 {
            let check = try kitchens.json(host, ["check"])
            #expect(check["ok"] as? Bool == true, "\(hostNames[host]): \(check)")
        }
        for (host, world) in kitchens.worlds.enumerated() {
            #expect(world.files(in: world.inbox).isEmpty, "\(hostNames[host])'s inbox")
        }
        // No start on the bucket took its empty local `previews/` for a catalog without previews.
        #expect(!kitchens.logs.contains("added before previews existed"), "\(kitchens.logs)")
        #expect(try kitchens.terminate() == [0, 0, 0], "\(kitchens.logs)")
    }

    /// Starts host `index` again with `UTENSIL_FAULT_KILL_AT=files-durable`: it kills itself
    /// with SIGKILL once the objects of a batch are in the bucket and before their rows commit.
    private static func armKillMidUpload(_ index: Int, of kitchens: KitchenLab) throws {
        kitchens.kill(index)
        try kitchens.restart(index, environment: ["UTENSIL_FAULT_KILL_AT": "files-durable"])
    }

    /// Waits for host `index`, armed by ``armKillMidUpload(_:of:)``, to have killed itself, and
    /// returns the live objects of no row then: its cut-off upload's (and any other host's in
    /// flight). It is not started again.
    private static func awaitKillMidUpload(_ index: Int, of kitchens: KitchenLab, _ client: S3Client) async throws -> Set<String> {
        let daemon = kitchens.daemons[index]
        try daemon.waitUntil(seconds: 120, "\(kitchens.hostName(index)) to kill itself mid-upload") { !daemon.process.isRunning }
        daemon.process.waitUntilExit()
        kitchens.kill(index)  // Its log is kept.
        let status = daemon.process.terminationStatus  // SIGKILL, through `ip netns exec` or not.
        #expect(status == SIGKILL || status == 128 + SIGKILL, "\(kitchens.hostName(index)) was not killed by its fault hook: \(daemon.log)")
        let live = try await client.list(prefix: KitchenLab.bucketPrefix).filter { !$0.hasPrefix(KitchenLab.bucketPrefix + "staging/") }
        let ids = try rowIDs(kitchens)  // Read after the listing: a row committed meanwhile counts.
        let ofNoRow = Set(live.filter { key in !ids.contains { key.contains($0) } })
        print("\(kitchens.hostName(index)) killed with \(ofNoRow.count) objects of no row in the bucket and \(kitchens.inboxCounts[index]) drops still in its inbox")
        #expect(!ofNoRow.isEmpty, "\(kitchens.hostName(index)) was not caught mid-upload: no object of no row in the bucket")
        return ofNoRow
    }

    /// The ids of the catalog's rows, as the bucket's keys spell them.
    private static func rowIDs(_ kitchens: KitchenLab) throws -> Set<String> {
        let ids = try kitchens.server.superuserSQL("SELECT id FROM utensils", database: kitchens.server.database)
        return Set(ids.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces).uppercased() }.filter { !$0.isEmpty })
    }

    /// Sweeps the bucket as a fourth host's sweeper would an hour from now, past the grace
    /// (``UtensilStore/sweepStorage(now:grace:)`` with its clock set ahead, on the real catalog
    /// and bucket): what the daemons' sweeper does to what interruptions leave.
    private static func sweepPastTheGrace(_ kitchens: KitchenLab, _ bucket: SeaweedServer) async throws -> UtensilStore.StorageSweep {
        let world = try TestWorld()
        defer { world.remove() }
        var settings = world.settings()
        settings.hostName = "sweeper"
        let storage = S3Storage(
            client: try bucket.client(), location: S3Location(bucket: bucket.bucket, prefix: String(KitchenLab.bucketPrefix.dropLast())),
            hostName: settings.hostName)
        var sweep = UtensilStore.StorageSweep()
        try await kitchens.server.withRunningCatalog { [settings] _, catalog, _ in
            let store = UtensilStore(settings: settings, catalog: catalog, storage: storage, logger: quietLogger, faults: FaultInjection())
            sweep = try await store.sweepStorage(now: Date().addingTimeInterval(UtensilStore.storageSweepGrace + 60))
        }
        return sweep
    }

    /// A utensil as `list --json` shows it, with the SHA-256 of its original as `gallery` serves it.
    private static func served(_ json: [String: Any], by gallery: WebClient) throws -> DropLedger.Listed {
        let original = json["original"] as? String ?? ""
        let route = "/originals/" + (original.split(separator: "/").last.map(String.init) ?? "?")
        let reply = try gallery.get(route)
        return DropLedger.Listed(
            id: json["id"] as? String ?? "?", name: json["name"] as? String ?? "?", host: json["host"] as? String ?? "?",
            sha256: reply.status == 200 ? sha256Hex(reply.body) : "(\(route) answers \(reply.status) for \(original))")
    }
}
