import Foundation
import UtensilControlProtocol
import UtensilCore

/// The ingest hooks: `on_ingest` after an ingest, `on_reject` after a rejection.
enum HookKind: String, Sendable {
    case onIngest = "on_ingest"
    case onReject = "on_reject"
}

/// One event a hook is run for: what `events` publishes, plus where a rejected file went.
struct HookEvent: Sendable {
    let event: EventInfo
    /// `rejected` only: the file's name in the rejected folder.
    let rejectedAs: String?

    /// The hook that runs for this event, if any kind does.
    var kind: HookKind? {
        switch event.kind {
        case .ingested: .onIngest
        case .rejected: .onReject
        case .rethumb, .category: nil
        }
    }

    /// The event's JSON, one line, exactly as `utensilctl events --json` prints it.
    func input() -> [UInt8] {
        (try? Array(LineFraming.encode(event))) ?? Array("{}\n".utf8)
    }

    /// The `UTENSIL_*` variables of this event (docs/OPERATIONS.md "Ingest hooks"), each `NAME=value`;
    /// a value holding a NUL byte (which no environment can carry) is left out.
    func variables(socket: String, host: String, rejectedFolder: String) -> [String] {
        var pairs: [(String, String?)] = [
            ("UTENSIL_EVENT", event.kind.rawValue),
            ("UTENSIL_AT", ControlTimestamp.string(from: event.at)),
            ("UTENSIL_INBOX_FILE", event.inboxFile),
            ("UTENSIL_SOCKET", socket),
            ("UTENSIL_HOST", host),
        ]
        if let utensil = event.utensil {
            pairs += [
                ("UTENSIL_ID", utensil.id), ("UTENSIL_NAME", utensil.name), ("UTENSIL_CATEGORY", utensil.category),
                ("UTENSIL_ADDED_BY", utensil.addedBy), ("UTENSIL_ORIGINAL", utensil.original),
                ("UTENSIL_THUMBNAIL", utensil.thumbnail),
            ]
        }
        pairs += [("UTENSIL_REJECT_REASON", event.reason), ("UTENSIL_REJECTED_FILE", rejectedAs.map { rejectedFolder + "/" + $0 })]
        return pairs.compactMap { name, value in
            guard let value, !value.utf8.contains(0) else { return nil }
            return name + "=" + value
        }
    }

    /// The variables a hook inherits from the daemon: the search path, locale, time zone and
    /// home, nothing else (not systemd's `NOTIFY_SOCKET`, `LISTEN_FDS`, credentials …).
    static func inherited(from environment: [String: String]) -> [String] {
        var result = ["PATH=" + (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")]
        for name in ["HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME"] {
            if let value = environment[name] { result.append(name + "=" + value) }
        }
        return result
    }
}
