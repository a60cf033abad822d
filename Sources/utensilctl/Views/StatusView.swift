import Foundation
import UtensilControlProtocol

/// `utensilctl status` for people: the last error with when it happened and whether it has
/// passed.
enum StatusView {
    static func render(_ status: StatusInfo, style: Style, now: Date = Date(), timeZone: TimeZone = .current) -> [String] {
        var list = KeyValueList()
        list.add("inbox", status.inbox + (status.inboxMissing ? "  (missing: the daemon waits for it)" : ""))
        list.add("rejected", status.rejectedDir)
        list.add("state", status.stateDir)
        list.add("watching", status.watching)
        list.add("utensils", "\(status.utensils)")
        list.add("queued", "\(status.queued), \(status.inFlight) in flight")
        list.add("since start", "\(status.ingested) ingested, \(status.rejected) rejected")
        list.add("last error", status.lastError.map { error in
            guard let at = status.lastErrorAt else { return error }
            let ago = Formats.duration(seconds: max(0, Int(now.timeIntervalSince(at))))
            let state = status.lastErrorPassed == true ? "passed" : "not passed yet"
            return "\(error) (\(Formats.dateTime(at, in: timeZone)), \(ago) ago; \(state))"
        } ?? "none")
        if let storage = status.storage {
            if let since = storage.since, storage.state != StorageHealth.ok.state {
                let ago = Formats.duration(seconds: max(0, Int(now.timeIntervalSince(since))))
                list.add(
                    "storage",
                    "\(storage.state) since \(Formats.dateTime(since, in: timeZone)), \(ago) ago (\(storage.detail ?? "no answer")); drops wait and are retried")
            } else {
                list.add("storage", storage.state)
            }
        }
        if let run = status.rethumb { list.add("rethumb", RethumbLine.render(run)) }
        let title = "utensild \(status.version), pid \(status.pid), up \(Formats.duration(seconds: status.uptimeSeconds))"
        return [style.bold(TerminalText.escaped(title))] + list.render(style: style, indent: "  ")
    }
}
