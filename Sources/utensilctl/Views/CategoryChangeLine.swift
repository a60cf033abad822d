import UtensilControlProtocol
import UtensilCore

/// A category rename, merge or delete in one line for people (`category rename|delete`, `events`).
enum CategoryChangeLine {
    static func render(_ change: CategoryChange) -> String {
        let from = "\"\(TerminalText.escaped(change.from))\""
        let utensils = change.moved == 1 ? "1 utensil" : "\(change.moved) utensils"
        guard let to = change.to.map({ "\"\(TerminalText.escaped($0))\"" }) else {
            return "Deleted the category \(from): \(utensils) now in no category."
        }
        if change.merged { return "Merged \(from) into \(to): \(utensils) moved, \(change.count) in \(to) now." }
        return "Renamed the category \(from) to \(to) (\(utensils))."
    }
}
