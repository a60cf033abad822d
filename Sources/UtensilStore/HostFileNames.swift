/// The names of the files in the state folder that belong to one running utensild: its lock,
/// its decoding slots and how its last run ended.
///
/// A state folder of one host (a SQLite catalog) has one of each: `utensild.lock`,
/// `decoding.slots`, `last-stop`. Several hosts sharing a state folder (a PostgreSQL catalog)
/// each have their own, named after their `host_name`: `utensild-<host_name>.lock`,
/// `decoding-<host_name>.slots`, `last-stop-<host_name>`; a host reads and recovers only its own.
public struct HostFileNames: Sendable, Equatable {
    /// The host name, when the state folder is shared.
    public let sharedAs: String?

    public init(sharedAs hostName: String?) {
        sharedAs = hostName
    }

    /// The state folder's lock (``StateLock``).
    public var lock: String { own("utensild", extension: ".lock") }
    /// The drops being decoded (``DecoderCrashGuard``).
    public var decodingSlots: String { own("decoding", extension: ".slots") }
    /// How systemd said the last run ended (``LastStop``).
    public var lastStop: String { own("last-stop", extension: "") }

    private func own(_ stem: String, extension suffix: String) -> String {
        sharedAs.map { "\(stem)-\($0)\(suffix)" } ?? stem + suffix
    }
}
