import Foundation
import UtensilControlProtocol

/// One line of `utensilctl events` for people.
enum EventLine {
    /// The line, `  on HOST` after it when the event names its host, and `  #SEQ` when it
    /// has one (what `events --since` takes). An ingest of a look-alike says which utensil
    /// its photo looks like a copy of.
    static func render(_ event: EventInfo, style: Style, timeZone: TimeZone = .current) -> String {
        let host = event.host.map { "  " + style.dim("on " + TerminalText.escaped($0)) } ?? ""
        let seq = event.seq.map { "  " + style.dim("#\($0)") } ?? ""
        return line(event, style: style, timeZone: timeZone) + host + seq
    }

    private static func line(_ event: EventInfo, style: Style, timeZone: TimeZone) -> String {
        let time = Formats.dateTime(event.at, in: timeZone)
        let file = TerminalText.escaped(event.inboxFile)
        switch event.kind {
        case .ingested:
            let name = event.utensil.map { TerminalText.escaped($0.name) } ?? "?"
            let id = event.utensil.map { "  " + style.dim($0.id) } ?? ""
            let resembling = event.utensil?.nearDuplicateOf.map {
                "  " + style.yellow("looks like a copy of \(TerminalText.escaped($0.name))")
            } ?? ""
            return "\(time)  \(style.green("ingested"))  \(name)  ← \(file)\(id)\(resembling)"
        case .rejected:
            let reason = TerminalText.escaped(event.reason ?? "rejected")
            let message = event.message.map { ": " + TerminalText.escaped($0) } ?? ""
            return "\(time)  \(style.red("rejected"))  \(file)  \(reason)\(message)"
        case .rethumb:
            return "\(time)  \(style.bold("rethumb"))  " + (event.rethumb.map(RethumbLine.render) ?? "?")
        case .category:
            return "\(time)  \(style.bold("category"))  " + (event.categoryChange.map(CategoryChangeLine.render) ?? "?")
        }
    }
}
