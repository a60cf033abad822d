extension ControlRequest: Codable {
    enum CodingKeys: String, CodingKey {
        case version = "v"
        case command, search, sort, limit, after, target, newName, file, all, preview, category, addedBy, none, now, missing, ids
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        command = try container.decode(ControlCommand.self, forKey: .command)
        search = try container.decodeIfPresent(String.self, forKey: .search)
        sort = try container.decodeIfPresent(ListSort.self, forKey: .sort)
        limit = try container.decodeIfPresent(Int.self, forKey: .limit)
        after = try container.decodeIfPresent(String.self, forKey: .after)
        target = try container.decodeIfPresent(String.self, forKey: .target)
        newName = try container.decodeIfPresent(String.self, forKey: .newName)
        file = try container.decodeIfPresent(String.self, forKey: .file)
        all = try container.decodeIfPresent(Bool.self, forKey: .all) ?? false
        preview = try container.decodeIfPresent(Bool.self, forKey: .preview) ?? false
        category = try container.decodeIfPresent(String.self, forKey: .category)
        addedBy = try container.decodeIfPresent(String.self, forKey: .addedBy)
        none = try container.decodeIfPresent(Bool.self, forKey: .none) ?? false
        now = try container.decodeIfPresent(Bool.self, forKey: .now) ?? false
        missing = try container.decodeIfPresent(Bool.self, forKey: .missing) ?? false
        ids = try container.decodeIfPresent([String].self, forKey: .ids)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(command, forKey: .command)
        try container.encodeIfPresent(search, forKey: .search)
        try container.encodeIfPresent(sort, forKey: .sort)
        try container.encodeIfPresent(limit, forKey: .limit)
        try container.encodeIfPresent(after, forKey: .after)
        try container.encodeIfPresent(target, forKey: .target)
        try container.encodeIfPresent(newName, forKey: .newName)
        try container.encodeIfPresent(file, forKey: .file)
        if all { try container.encode(true, forKey: .all) }
        if preview { try container.encode(true, forKey: .preview) }
        try container.encodeIfPresent(category, forKey: .category)
        try container.encodeIfPresent(addedBy, forKey: .addedBy)
        if none { try container.encode(true, forKey: .none) }
        if now { try container.encode(true, forKey: .now) }
        if missing { try container.encode(true, forKey: .missing) }
        try container.encodeIfPresent(ids, forKey: .ids)
    }
}
