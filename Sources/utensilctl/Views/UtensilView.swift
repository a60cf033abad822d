import Foundation
import UtensilControlProtocol

/// `utensilctl show` (and the confirmations of `delete` and `rename`) for people.
enum UtensilView {
    static func render(_ utensil: UtensilInfo, style: Style, timeZone: TimeZone = .current) -> [String] {
        var list = KeyValueList()
        list.add("id", utensil.id)
        list.add("category", utensil.category ?? "none")
        list.add("added by", utensil.addedBy ?? "unknown")
        if let host = utensil.host { list.add("host", host) }
        if let near = utensil.nearDuplicateOf {
            list.add("looks like", "a copy of \(TerminalText.escaped(near.name)) (\(near.id), \(near.distance) bits apart)")
        }
        if let favorite = utensil.favorite { list.add("favorite", favorite ? "yes (yours)" : "no") }
        list.add("extension", utensil.fileExtension)
        list.add("pixels", "\(utensil.width) × \(utensil.height)")
        list.add("size", "\(Formats.bytes(utensil.bytes)) (\(utensil.bytes) bytes)")
        list.add("created", Formats.dateTime(utensil.createdAt, in: timeZone))
        if let updatedAt = utensil.updatedAt { list.add("updated", Formats.dateTime(updatedAt, in: timeZone)) }
        if let trashedAt = utensil.trashedAt { list.add("trashed", Formats.dateTime(trashedAt, in: timeZone)) }
        if let purgeAt = utensil.purgeAt { list.add("purged", Formats.dateTime(purgeAt, in: timeZone)) }
        list.add("original", utensil.original)
        list.add("thumbnail", utensil.thumbnail)
        if let preview = utensil.previewFile { list.add("preview", preview) }
        return [style.bold(TerminalText.escaped(utensil.name))] + list.render(style: style, indent: "  ")
    }

    /// The picture for `show --preview`, or why there is none.
    static func preview(_ utensil: UtensilInfo, terminal: Terminal) -> (lines: [String], note: String?) {
        guard terminal.allowsColor else {
            return ([], "No preview: it needs colour on a terminal (standard output is not one, or NO_COLOR is set).")
        }
        guard let picture = utensil.preview else {
            return ([], "No preview: the daemon sent none for this utensil.")
        }
        return (HalfBlockPicture.render(picture, indent: "  "), nil)
    }
}
