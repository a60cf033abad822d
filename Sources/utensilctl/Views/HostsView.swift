import Foundation
import UtensilControlProtocol

/// `utensilctl hosts` for people.
enum HostsView {
    static func render(_ hosts: [HostInfo], style: Style, timeZone: TimeZone = .current) -> [String] {
        guard !hosts.isEmpty else { return ["No host has written a heartbeat into this catalog yet."] }
        var table = Table(columns: [
            .init(title: "HOST"), .init(title: "STATE"), .init(title: "VERSION"),
            .init(title: "SCHEMA", alignsRight: true), .init(title: "LAST SEEN"),
            .init(title: "QUEUED", alignsRight: true), .init(title: "INGESTED", alignsRight: true),
            .init(title: "REJECTED", alignsRight: true),
        ])
        table.rows = hosts.map { host in
            [
                host.name, host.state.rawValue, host.version, host.schema.map(String.init) ?? "",
                Formats.dateTime(host.lastSeen, in: timeZone),
                "\(host.queued)", "\(host.ingested)", "\(host.rejected)",
            ]
        }
        return table.render(style: style)
    }
}
