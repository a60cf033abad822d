import Foundation
import UtensilStorage

/// The names of the files in the state folder that belong to one running utensild: its lock,
/// its decoding slots and how its last run ended; and of its temporaries in `rejected/`.
///
/// A state folder of one host (a SQLite catalog) has one of each: `utensild.lock`,
/// `decoding.slots`, `last-stop`. Several hosts sharing a state folder (a PostgreSQL catalog)
/// each have their own, named after their `host_name`: `utensild-<host_name>.lock`,
/// `decoding-<host_name>.slots`, `last-stop-<host_name>`; a host reads and recovers only its own.
/// Its temporaries in `rejected/` (which hosts watching one inbox share) are then
/// `.tmp-<host_name>-<UUID>`, so that its start removes those a crash left at once, whatever
/// their age, and leaves the other hosts' young ones (their writes in flight) alone.
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

    /// The beginning of this host's temporaries' names: `.tmp-<host_name>-`, or `.tmp-` alone.
    public var temporaryPrefix: String { FileOps.temporaryPrefix + (sharedAs.map { "\($0)-" } ?? "") }

    /// A new name for a temporary of this host's: ``temporaryPrefix`` and a random UUID.
    public func temporaryName() -> [UInt8] {
        Array((temporaryPrefix + UUID().uuidString).utf8)
    }

    /// Whether `name` is a temporary of this host's (``temporaryName()``): with a host name,
    /// exactly its prefix and a UUID (so not another host's whose name begins with this one's
    /// and a dash); without, any temporary.
    public func isOwnTemporary(_ name: [UInt8]) -> Bool {
        let prefix = Array(temporaryPrefix.utf8)
        guard name.starts(with: prefix) else { return false }
        guard sharedAs != nil else { return true }
        return UUID(uuidString: String(decoding: name.dropFirst(prefix.count), as: UTF8.self)) != nil
    }

    private func own(_ stem: String, extension suffix: String) -> String {
        sharedAs.map { "\(stem)-\($0)\(suffix)" } ?? stem + suffix
    }
}
