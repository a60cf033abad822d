import UtensilCore

/// The wire form: `"v"`, `"command"` and the command's own keys; keys a command does not
/// take are ignored when decoding and never written. A missing or unusable argument is a
/// `bad-request` `ControlError` that names the key; a value of the wrong JSON type is a
/// `DecodingError` (which `LineFraming.decodeRequest` words as a `bad-request` naming the key).
extension ControlRequest: Codable {
    enum CodingKeys: String, CodingKey {
        case version = "v"
        case command, search, sort, limit, after, target, newName, file, all, preview, category, addedBy, none, now
        case missing, targets, favorites
        case destination, parentDevice, parentInode
    }

    public init(from decoder: any Decoder) throws {
        let arguments = try Arguments(decoder)
        switch arguments.command {
        case .status: self = .status
        case .list:
            let options = ListOptions(
                search: try arguments.optional(.search), sort: try arguments.optional(.sort, as: ListSort.self),
                limit: try arguments.optional(.limit, as: Int.self), after: try arguments.optional(.after),
                category: try arguments.optional(.category), addedBy: try arguments.optional(.addedBy),
                favorites: try arguments.flag(.favorites))
            if let limit = options.limit, limit < 1 {
                throw ControlError(.badRequest, "The list limit must be at least 1, not \(limit).")
            }
            self = .list(options)
        case .show:
            self = .show(try arguments.required(.target, "the id or name of a utensil"), preview: try arguments.flag(.preview))
        case .delete:
            self = .delete(try arguments.required(.target, "the id of a utensil"), now: try arguments.flag(.now))
        case .rename:
            self = .rename(
                try arguments.required(.target, "the id of the utensil to rename"),
                to: try arguments.required(.newName, "the new name"))
        case .rejected: self = .rejected
        case .retry:
            if try arguments.flag(.all) {
                guard try arguments.optional(.file) == nil else {
                    throw ControlError(.badRequest, "Retry takes either a file or \"all\", not both.")
                }
                self = .retryAll
            } else {
                self = .retry(file: try arguments.required(.file, "a file name in the rejected folder, or \"all\": true"))
            }
        case .check: self = .check
        case .events: self = .events
        case .categories: self = .categories
        case .setCategory:
            let target = try arguments.required(.target, "the id of the utensil")
            if try arguments.flag(.none) {
                guard try arguments.optional(.category) == nil else {
                    throw ControlError(.badRequest, "Set-category takes either a category or \"none\": true, not both.")
                }
                self = .setCategory(target, to: nil)
            } else {
                self = .setCategory(target, to: try arguments.required(.category, "the new category, or \"none\": true"))
            }
        case .trash: self = .trash
        case .restore:
            self = .restore(try arguments.required(.target, "the id of a utensil in the trash"), as: try arguments.optional(.newName))
        case .rethumb:
            let targets = try arguments.optional(.targets, as: [String].self) ?? []
            let chosen: [RethumbSelection] =
                (try arguments.flag(.all) ? [.all] : []) + (try arguments.flag(.missing) ? [.missing] : [])
                + (targets.isEmpty ? [] : [.utensils(targets)])
            guard chosen.count == 1, let selection = chosen.first else {
                throw ControlError(.badRequest, chosen.isEmpty
                    ? "The rethumb command needs \"all\": true, \"missing\": true or \"targets\": the ids of utensils."
                    : "Rethumb takes one of \"all\", \"missing\" and \"targets\", not several.")
            }
            self = .rethumb(selection)
        case .favorite: self = .favorite(try arguments.required(.target, "the id of a utensil"))
        case .unfavorite: self = .unfavorite(try arguments.required(.target, "the id of a utensil"))
        case .categoryRename:
            self = .categoryRename(
                try arguments.required(.category, "the category to rename"), to: try arguments.required(.newName, "its new name"))
        case .categoryDelete: self = .categoryDelete(try arguments.required(.category, "the category to delete"))
        case .backup:
            let path = try arguments.required(.destination, "the absolute path of the new backup folder")
            guard path.hasPrefix("/") else {
                throw ControlError(.badRequest, "The backup destination must be an absolute path, not \(path).")
            }
            self = .backup(BackupDestination(
                path: path, parentDevice: try arguments.optional(.parentDevice, as: UInt64.self),
                parentInode: try arguments.optional(.parentInode, as: UInt64.self)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ControlProtocol.version, forKey: .version)
        try container.encode(command, forKey: .command)
        switch self {
        case .status, .rejected, .check, .events, .categories, .trash:
            break
        case .list(let options):
            try container.encodeIfPresent(options.search, forKey: .search)
            try container.encodeIfPresent(options.sort, forKey: .sort)
            try container.encodeIfPresent(options.limit, forKey: .limit)
            try container.encodeIfPresent(options.after, forKey: .after)
            try container.encodeIfPresent(options.category, forKey: .category)
            try container.encodeIfPresent(options.addedBy, forKey: .addedBy)
            if options.favorites { try container.encode(true, forKey: .favorites) }
        case .show(let target, let preview):
            try container.encode(target, forKey: .target)
            if preview { try container.encode(true, forKey: .preview) }
        case .delete(let target, let now):
            try container.encode(target, forKey: .target)
            if now { try container.encode(true, forKey: .now) }
        case .rename(let target, let newName):
            try container.encode(target, forKey: .target)
            try container.encode(newName, forKey: .newName)
        case .retry(let file):
            try container.encode(file, forKey: .file)
        case .retryAll:
            try container.encode(true, forKey: .all)
        case .setCategory(let target, let category):
            try container.encode(target, forKey: .target)
            if let category {
                try container.encode(category, forKey: .category)
            } else {
                try container.encode(true, forKey: .none)
            }
        case .restore(let target, let newName):
            try container.encode(target, forKey: .target)
            try container.encodeIfPresent(newName, forKey: .newName)
        case .rethumb(.all):
            try container.encode(true, forKey: .all)
        case .rethumb(.missing):
            try container.encode(true, forKey: .missing)
        case .rethumb(.utensils(let ids)):
            try container.encode(ids, forKey: .targets)
        case .favorite(let target), .unfavorite(let target):
            try container.encode(target, forKey: .target)
        case .categoryRename(let category, let newName):
            try container.encode(category, forKey: .category)
            try container.encode(newName, forKey: .newName)
        case .categoryDelete(let category):
            try container.encode(category, forKey: .category)
        case .backup(let destination):
            try container.encode(destination.path, forKey: .destination)
            try container.encodeIfPresent(destination.parentDevice, forKey: .parentDevice)
            try container.encodeIfPresent(destination.parentInode, forKey: .parentInode)
        }
    }

    /// The keyed container of one request, read for the command it names.
    private struct Arguments {
        let container: KeyedDecodingContainer<CodingKeys>
        let command: ControlCommand

        init(_ decoder: any Decoder) throws {
            container = try decoder.container(keyedBy: CodingKeys.self)
            _ = try container.decode(Int.self, forKey: .version)
            command = try container.decode(ControlCommand.self, forKey: .command)
        }

        func optional<Value: Decodable>(_ key: CodingKeys, as type: Value.Type = String.self) throws -> Value? {
            try container.decodeIfPresent(type, forKey: key)
        }

        /// A string the command cannot do without; absent or empty is a `bad-request`.
        func required(_ key: CodingKeys, _ what: String) throws -> String {
            guard let value = try optional(key), !value.isEmpty else {
                throw ControlError(.badRequest, "The \(command.rawValue) command needs \"\(key.stringValue)\": \(what).")
            }
            return value
        }

        /// A boolean switch, `false` when absent.
        func flag(_ key: CodingKeys) throws -> Bool {
            try optional(key, as: Bool.self) ?? false
        }
    }
}
