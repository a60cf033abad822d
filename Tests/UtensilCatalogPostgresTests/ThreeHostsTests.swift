import Foundation
import Testing
import UtensilTestSupport

/// Three hosts, one catalog, one state folder, and things going wrong mid-burst: three
/// utensild instances (`kitchen-1` … `kitchen-3`), each in a network namespace of its own
/// reaching one real PostgreSQL 15 over its virtual link, each with its own inbox,
/// `rejected/` and control socket, all sharing one state folder (``KitchenLab``).
///
/// A first burst spreads distinct photos over the three inboxes, drops the same name on all
/// three at once (a different photo on each) and the same photo under two names on two hosts;
/// `kitchen-3` is killed with SIGKILL while it ingests, and started again with the same name
/// and folders. A second burst does the same while PostgreSQL is stopped (`-m immediate`, as
/// if it crashed) and started again; a last drop on each host follows the outage. Then every
/// drop is exactly one utensil — on the host it was dropped on, its bytes intact — or one
/// rejection with the sidecar the duplicate policies call for (``DropLedger``): nothing lost,
/// nothing doubled; every host's `list --json` is the same; `check` is clean on every host.
///
/// The second test has the three hosts poll one shared inbox, as hosts sharing an inbox on a
/// network filesystem do: each drop is taken by exactly one of them (it is claimed in the
/// catalog before it is read), through a `kill -9` of one host mid-burst.
@Suite(.serialized, .tags(.spawnsProcesses)) struct ThreeHostsTests {
    @Test func nothingIsLostOrDoubledThroughAKillAndAPostgreSQLRestart() throws {
        let kitchens = try KitchenLab(hosts: 3)
        defer { kitchens.remove() }
        let hostNames = (0..<3).map { kitchens.hostName($0) }
        let photos = try KitchenLab.photos(44, in: kitchens.worlds[0].root)
        var ledger = DropLedger()

        // The first burst; kitchen-3 killed while it works through it.
        var burst = DropLedger()
        for index in 0..<18 { burst.plain(index % 3, "Spoon \(index + 1)", photos[index]) }
        burst.sameName("Ladle", on: [0, 1, 2], Array(photos[18..<21]))
        burst.samePhoto(photos[21], as: [(0, "Spatula"), (2, "Fish Slice")])
        try kitchens.drop(burst)
        let onKitchen3 = burst.drops.filter { $0.host == 2 }.count
        try Poll.until(seconds: 60, "kitchen-3 to start on its drops", every: 5_000, detail: { kitchens.logs }) {
            kitchens.inboxCounts[2] < onKitchen3
        }
        let leftAtKill = kitchens.inboxCounts[2]
        try kitchens.killAndRestart(2)
        print("kitchen-3 killed with \(leftAtKill) of its \(onKitchen3) drops still in its inbox")
        ledger.append(burst)
        try kitchens.waitUntilSettled(ledger)

        // The second burst; PostgreSQL stopped as if it crashed while the hosts work through
        // it, the rest of it dropped while the server is down, and the server started again
        // once every host has found it unavailable.
        burst = DropLedger()
        burst.sameName("Whisk", on: [2, 0, 1], Array(photos[37..<40]))
        for index in 0..<15 { burst.plain(index % 3, "Fork \(index + 1)", photos[22 + index]) }
        burst.samePhoto(photos[40], as: [(1, "Colander"), (2, "Sieve")])
        let beforeOutage = 12
        try kitchens.drop(burst.drops.prefix(beforeOutage))
        try Poll.until(seconds: 60, "the hosts to start on the second burst", every: 5_000, detail: { kitchens.logs }) {
            kitchens.inboxCounts.reduce(0, +) < beforeOutage
        }
        let leftAtStop = kitchens.inboxCounts.reduce(0, +)
        try kitchens.server.stop(.immediate)
        try kitchens.drop(burst.drops.dropFirst(beforeOutage))
        try Poll.until(seconds: 120, "every host to find the catalog unavailable", detail: { kitchens.logs }) {
            kitchens.daemons.allSatisfy { $0.log.contains("The catalog is unavailable") }
        }
        try kitchens.server.start()
        print("PostgreSQL stopped with \(leftAtStop) of \(beforeOutage) drops still in the inboxes; \(burst.drops.count - beforeOutage) more dropped while it was down")
        ledger.append(burst)
        // A drop on each host after the outage.
        burst = DropLedger()
        for host in 0..<3 { burst.plain(host, "Tongs \(host + 1)", photos[41 + host]) }
        try kitchens.drop(burst)
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
        let utensils = try #require(page["utensils"] as? [[String: Any]], "\(lists[0].output)").map(Self.listed)
        let rejected = kitchens.worlds.map(DropLedger.rejections(in:))
        let problems = ledger.problems(utensils: utensils, hostNames: hostNames, rejected: rejected)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\n\(kitchens.logs)")
        #expect(utensils.count == ledger.expectedUtensils)
        #expect(rejected.map(\.count).reduce(0, +) == ledger.expectedRejections, "\(rejected)")

        try Self.expectStateAndChecksClean(kitchens, ledger)
        for host in 0..<3 {
            #expect(kitchens.worlds[host].files(in: kitchens.worlds[host].inbox).isEmpty)
        }
        // Each host said once that the catalog answers again (with its first drop after the outage).
        for (host, daemon) in kitchens.daemons.enumerated() {
            #expect(daemon.log.components(separatedBy: "The catalog answers again").count == 2, "\(hostNames[host]):\n\(daemon.log)")
        }
        let hosts = try Utensilctl.run(["hosts", "--json"], socket: kitchens.socket(0))
        let listedHosts = (try? JSONSerialization.jsonObject(with: Data(hosts.output.utf8)) as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(listedHosts == hostNames, "\(hosts.output)\(hosts.errors)")
        #expect(try kitchens.terminate() == [0, 0, 0], "\(kitchens.logs)")
    }

    @Test func threeHostsPollingOneInboxTakeEachDropOnce() throws {
        let kitchens = try KitchenLab(hosts: 3, sharedInbox: true)
        defer { kitchens.remove() }
        let hostNames = (0..<3).map { kitchens.hostName($0) }
        let photos = try KitchenLab.photos(40, in: kitchens.worlds[0].root)
        var ledger = DropLedger()
        ledger.anyHostIngests = true
        // Everything goes into the one inbox (the first world's); so does every rejection.
        for index in 0..<36 { ledger.plain(0, "Pot \(index + 1)", photos[index]) }
        ledger.samePhoto(photos[36], as: [(0, "Saucepan"), (0, "Stockpot")])
        ledger.samePhoto(photos[37], as: [(0, "Skillet"), (0, "Frying Pan"), (0, "Wok")])
        try kitchens.drop(ledger)
        try Poll.until(seconds: 60, "the hosts to start on the drops", every: 5_000, detail: { kitchens.logs }) {
            kitchens.inboxCounts[0] < ledger.drops.count - 6
        }
        let leftAtKill = kitchens.inboxCounts[0]
        try kitchens.killAndRestart(1)
        print("kitchen-2 killed with \(leftAtKill) of \(ledger.drops.count) drops still in the shared inbox")
        try kitchens.waitUntilSettled(ledger)

        let list = try Utensilctl.run(["list", "--limit", "1000", "--json"], socket: kitchens.socket(2), timeout: 90)
        let page = try #require(list.json, "\(list.output)\(list.errors)")
        let utensils = try #require(page["utensils"] as? [[String: Any]], "\(list.output)").map(Self.listed)
        let rejected = [DropLedger.rejections(in: kitchens.worlds[0])]
        let problems = ledger.problems(utensils: utensils, hostNames: hostNames, rejected: rejected)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\n\(kitchens.logs)")
        #expect(utensils.count == ledger.expectedUtensils)
        #expect(rejected[0].count == ledger.expectedRejections, "\(rejected)")
        // The hosts shared the work: more than one of them ingested drops.
        let byHost = Dictionary(grouping: utensils, by: \.host).mapValues(\.count)
        print("utensils by host: \(byHost.sorted { $0.key < $1.key })")
        #expect(byHost.count >= 2, "\(byHost)")
        try Self.expectStateAndChecksClean(kitchens, ledger)
        #expect(try kitchens.terminate() == [0, 0, 0], "\(kitchens.logs)")
    }

    /// The shared state folder holds each utensil's four files and nothing else (nothing in
    /// `staging/`), and `check` is clean on every host.
    private static func expectStateAndChecksClean(_ kitchens: KitchenLab, _ ledger: DropLedger) throws {
        let state = kitchens.worlds[0]
        for folder in [state.originals, state.thumbnails, state.squares, state.previews] {
            #expect(state.files(in: folder).count == ledger.expectedUtensils, "\(folder.path): \(state.files(in: folder))")
        }
        #expect(state.stagedFiles().isEmpty, "\(state.stagedFiles())")
        for host in kitchens.worlds.indices {
            let check = try kitchens.json(host, ["check"])
            #expect(check["ok"] as? Bool == true, "\(kitchens.hostName(host)): \(check)")
        }
    }

    private static func listed(_ json: [String: Any]) -> DropLedger.Listed {
        let original = json["original"] as? String ?? ""
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: original))) ?? Data()
        return DropLedger.Listed(
            id: json["id"] as? String ?? "?", name: json["name"] as? String ?? "?", host: json["host"] as? String ?? "?",
            sha256: bytes.isEmpty ? "(no original at \(original))" : sha256Hex(bytes))
    }
}
