import Logging
import ServiceLifecycle
import UtensilCatalogModel
import UtensilControlProtocol

/// Beats this host's heartbeat (``HostHeart``) at start, every ``interval`` while it runs
/// (on a catalog other hosts share), and a last time, marked stopped, when its turn to stop
/// comes (after the ingest workers, so that the last counts are final). Another host shows it
/// as gone once it has stopped, or when its last beat is older than
/// ``HostHeartbeat/goneAfter`` (30 s: killed, hung, or cut off from the catalog). A beat that
/// fails is logged once, and again when beats succeed again; the daemon goes on regardless.
///
/// After each beat while it runs, it reads the other hosts' heartbeats: one whose utensild
/// knows a newer catalog schema than this host's migrated the catalog past it (a host
/// migrates at start). This host goes on serving, but would refuse the catalog at its next
/// start; it says so once per newer schema, as a warning (``newerSchemaWarning(_:version:schema:)``).
struct HostHeartbeatService: Service {
    let heart: HostHeart
    /// How often a running host beats: ``HostHeartbeat/interval`` on a shared catalog; nil on
    /// a catalog no other host reads (see ``interval(sharesCatalog:)``).
    let interval: Duration?
    let logger: Logger

    /// How often a host beats while it runs. On a catalog other hosts share (PostgreSQL), every
    /// ``HostHeartbeat/interval``, so that they see it up, or gone once it stops beating. A
    /// SQLite catalog is this host's alone: its row is written at start, by every `hosts`
    /// (which beats before it lists) and at stop, and an idle daemon neither wakes nor writes
    /// to its disk for it.
    static func interval(sharesCatalog: Bool) -> Duration? {
        sharesCatalog ? HostHeartbeat.interval : nil
    }

    func run() async {
        // Whether the latest beat failed, so that a failure is logged once. A beat under way
        // when the shutdown comes is cancelled (a catalog that does not answer holds no stop).
        var failing = await cancelWhenGracefulShutdown {
            var failing = false
            var warnedSchema = heart.registry.knownSchema
            await beat(failing: &failing)
            await lookForNewerSchema(warned: &warnedSchema)
            guard let interval else { return failing }
            while true {
                do { try await Task.sleep(for: interval) } catch { return failing }
                await beat(failing: &failing)
                await lookForNewerSchema(warned: &warnedSchema)
            }
        }
        if interval == nil { try? await gracefulShutdown() }
        await beat(stopping: true, failing: &failing)
    }

    private func beat(stopping: Bool = false, failing: inout Bool) async {
        do {
            try await heart.beat(stopping: stopping)
            if failing { logger.notice("This host's heartbeat is written to the catalog again") }
            failing = false
        } catch {
            if !failing {
                logger.warning(
                    "Cannot write this host's heartbeat to the catalog (other hosts may list it as gone): \(error)")
            }
            failing = true
        }
    }

    /// Warns once when a host's heartbeat shows a newer catalog schema than `warned` (at first
    /// this host's own), and raises `warned` to it. A catalog that cannot be read now is left
    /// for the next beat (the beat itself says when the catalog fails).
    private func lookForNewerSchema(warned: inout Int) async {
        guard let hosts = try? await heart.registry.hosts(), let newer = Self.newestSchema(in: hosts, above: warned),
            let schema = newer.schema
        else { return }
        warned = schema
        logger.warning(
            "\(Self.newerSchemaWarning(newer, version: UtensildVersion.current, schema: heart.registry.knownSchema))")
    }

    /// The host whose heartbeat shows the newest schema above `schema` (the first in name order
    /// among equals); nil when none does. Gone hosts count: the catalog stays migrated.
    static func newestSchema(in hosts: [HostHeartbeat], above schema: Int) -> HostHeartbeat? {
        hosts.reduce(nil) { newest, host in
            guard let hostSchema = host.schema, hostSchema > (newest?.schema ?? schema) else { return newest }
            return host
        }
    }

    /// What this host (utensild `version`, knowing `schema`) says when `newer`'s heartbeat
    /// shows that it migrated the catalog past it.
    static func newerSchemaWarning(_ newer: HostHeartbeat, version: String, schema: Int) -> String {
        "Host \(newer.name) (utensild \(newer.version), schema \(newer.schema.map(String.init) ?? "unknown")) "
            + "migrated the catalog past this host's (utensild \(version), schema \(schema)): this host goes on "
            + "serving, but upgrade it before it restarts — it will refuse the catalog."
    }
}
