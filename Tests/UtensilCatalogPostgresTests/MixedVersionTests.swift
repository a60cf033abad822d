import Foundation
import Testing
import UtensilCatalogPostgres
import UtensilTestSupport

/// Hosts of different versions sharing one PostgreSQL catalog, on a private server with the
/// real daemon: `utensilctl hosts` shows each host's version and the catalog schema it knows;
/// a running host whose catalog a newer one migrated says so once and goes on serving, and
/// refuses the catalog when it starts again; older hosts beside it change nothing. The other
/// hosts are rows written as theirs would be: a newer one records the migration it applied
/// (one this utensild does not know) and its heartbeat.
@Suite("hosts of several versions on one catalog", .serialized, .tags(.spawnsProcesses))
struct MixedVersionTests {
    /// This build's newest schema: how many migrations it knows.
    static let schema = PostgresSchema.migrations.count
    /// The line a host says when another migrated the catalog past it.
    static let warning = "migrated the catalog past this host's"

    private func daemonExtra(_ server: PostgresServer) -> [String] {
        ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"]
    }

    /// `utensilctl hosts --json`, by name.
    private func hosts(socket: String) throws -> [String: [String: Any]] {
        let run = try Utensilctl.run(["hosts", "--json"], socket: socket)
        #expect(run.status == 0, "\(run.errors)")
        let rows = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [[String: Any]] ?? []
        return Dictionary(rows.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Waits until kitchen-1 has written `beats` more heartbeats of its own (its `last_seen`
    /// changed that many times): each periodic beat is followed by its look at the others'.
    private func waitForBeats(_ beats: Int, _ server: PostgresServer, _ daemon: RunningDaemon) throws {
        func lastSeen() -> String {
            (try? server.superuserSQL("SELECT last_seen FROM hosts WHERE name = 'kitchen-1'", database: server.database)) ?? ""
        }
        var seen = lastSeen()
        for beat in 1...beats {
            try Poll.until(seconds: 60, "heartbeat \(beat) of kitchen-1", every: 200_000, detail: { daemon.log }) {
                let now = lastSeen()
                defer { seen = now }
                return now != seen
            }
        }
    }

    /// `utensild --version`: the version this build says it is.
    private static func thisVersion() throws -> String {
        try UtensildProcess.run(["--version"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aHostBesideANewerOneWarnsOnceShowsBothAndRefusesTheCatalogWhenItStartsAgain() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let version = try Self.thisVersion()
        let socket = world.root.appendingPathComponent("control.sock").path
        let daemon = try RunningDaemon(world: world, extra: daemonExtra(server))
        // The first heartbeat is written beside start-up, not before READY=1.
        let ownSchema = { (try? server.superuserSQL("SELECT schema FROM hosts WHERE name = 'kitchen-1'", database: server.database)) ?? "" }
        try Poll.until(seconds: 30, "kitchen-1's first heartbeat", detail: { daemon.log }) { !ownSchema().isEmpty }
        #expect(ownSchema() == "\(Self.schema)")

        // A newer utensild starts on kitchen-2: it applies a migration this one does not know,
        // and beats with its version and schema.
        try server.superuserSQL(
            """
            INSERT INTO utensild_migrations (name) VALUES ('v99-future');
            INSERT INTO hosts (name, version, schema, started_at, last_seen, queued, ingested, rejected)
            VALUES ('kitchen-2', '99.1.0', \(Self.schema + 1), now(), now(), 0, 0, 0)
            """, database: server.database)

        // kitchen-1 learns it at its next beat, says it once, and goes on serving.
        let line = "Host kitchen-2 (utensild 99.1.0, schema \(Self.schema + 1)) migrated the catalog past this host's "
            + "(utensild \(version), schema \(Self.schema)): this host goes on serving, but upgrade it before it "
            + "restarts — it will refuse the catalog."
        try daemon.waitUntil(seconds: 60, "the warning of a newer schema") { daemon.log.contains(line) }
        #expect(daemon.log.split(separator: "\n").first { $0.contains(line) }?.contains("warning") == true, "\(daemon.log)")

        let listed = try hosts(socket: socket)
        #expect(listed.keys.sorted() == ["kitchen-1", "kitchen-2"])
        #expect(listed["kitchen-1"]?["version"] as? String == version)
        #expect(listed["kitchen-1"]?["schema"] as? Int == Self.schema)
        #expect(listed["kitchen-1"]?["state"] as? String == "up")
        #expect(listed["kitchen-2"]?["version"] as? String == "99.1.0")
        #expect(listed["kitchen-2"]?["schema"] as? Int == Self.schema + 1)
        let human = try Utensilctl.run(["hosts"], socket: socket)
        let rows = human.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.first?.prefix(4) == ["HOST", "STATE", "VERSION", "SCHEMA"], "\(human.output)")
        #expect(rows.dropFirst().map { Array($0.prefix(4)) }
            == [["kitchen-1", "up", version, "\(Self.schema)"], ["kitchen-2", "up", "99.1.0", "\(Self.schema + 1)"]],
            "\(human.output)")

        // Beats go on (kitchen-2 beats too): no second warning for the same schema.
        try server.superuserSQL("UPDATE hosts SET last_seen = now() WHERE name = 'kitchen-2'", database: server.database)
        try waitForBeats(2, server, daemon)
        #expect(daemon.log.components(separatedBy: Self.warning).count == 2, "\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")

        // Started again, it refuses the catalog, naming both versions.
        let refusal = try daemonRefusal(world, extra: daemonExtra(server))
        #expect(refusal.status == 78, "\(refusal.log)")
        #expect(refusal.log.contains(
            "was migrated by utensild 99.1.0 (v99-future), which this utensild \(version) does not know; upgrade utensild on this host to 99.1.0 or later"),
            "\(refusal.log)")
    }

    @Test func olderHostsAreShownAsSuchAndNoOneWarns() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let version = try Self.thisVersion()
        let socket = world.root.appendingPathComponent("control.sock").path
        let daemon = try RunningDaemon(world: world, extra: daemonExtra(server))

        // kitchen-0 runs a version that does not write its schema; kitchen-2 one that knows
        // one migration fewer.
        try server.superuserSQL(
            """
            INSERT INTO hosts (name, version, started_at, last_seen, queued, ingested, rejected)
            VALUES ('kitchen-0', '0.0.1', now(), now(), 0, 0, 0);
            INSERT INTO hosts (name, version, schema, started_at, last_seen, queued, ingested, rejected)
            VALUES ('kitchen-2', '0.0.2', \(Self.schema - 1), now(), now(), 0, 0, 0)
            """, database: server.database)

        let listed = try hosts(socket: socket)
        #expect(listed.keys.sorted() == ["kitchen-0", "kitchen-1", "kitchen-2"])
        #expect(listed["kitchen-0"]?["version"] as? String == "0.0.1")
        #expect(listed["kitchen-0"].map { $0.keys.contains("schema") && $0["schema"] is NSNull } == true, "\(listed)")
        #expect(listed["kitchen-1"]?["version"] as? String == version)
        #expect(listed["kitchen-1"]?["schema"] as? Int == Self.schema)
        #expect(listed["kitchen-2"]?["version"] as? String == "0.0.2")
        #expect(listed["kitchen-2"]?["schema"] as? Int == Self.schema - 1)
        let human = try Utensilctl.run(["hosts"], socket: socket)
        let rows = human.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        // kitchen-0's schema is blank: the column after its version is the next one's.
        #expect(rows.dropFirst().map { Array($0.prefix(3)) }
            == [["kitchen-0", "up", "0.0.1"], ["kitchen-1", "up", version], ["kitchen-2", "up", "0.0.2"]], "\(human.output)")
        #expect(rows.dropFirst().map { $0.dropFirst(3).first.flatMap { Int($0) } } == [nil, Self.schema, Self.schema - 1],
            "\(human.output)")

        // Two beats later, each followed by its look at the others' heartbeats: nothing said.
        try waitForBeats(2, server, daemon)
        #expect(!daemon.log.contains(Self.warning), "\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
        // Older hosts' heartbeats hold no start back.
        let again = try RunningDaemon(world: world, extra: daemonExtra(server))
        #expect(try again.terminate() == 0, "\(again.log)")
    }
}
