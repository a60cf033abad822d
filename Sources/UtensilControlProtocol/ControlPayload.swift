/// What a successful reply carries: exactly one of these, under its own key beside
/// `"v"` and `"ok"` (`{"v":1,"ok":true,"list":{…}}`).
public enum ControlPayload: Sendable, Equatable {
    /// `status` → `"status"`.
    case status(StatusInfo)
    /// `list` → `"list"`.
    case list(UtensilPage)
    /// `show` → `"utensil"`.
    case utensil(UtensilInfo)
    /// `rejected` → `"rejected"`.
    case rejected([RejectedInfo])
    /// `retry` → `"retried"`: the file names moved back into the inbox; beside it, only when
    /// some could not be moved, `"notRetried"`: those, each with why.
    case retried([String], notRetried: [RetryFailure] = [])
    /// `check` → `"check"`.
    case check(CheckReport)
    /// `delete` → `"deleted"`: the utensil as it was.
    case deleted(UtensilInfo)
    /// `rename` → `"renamed"`: the utensil with its new name.
    case renamed(UtensilInfo)
    /// `categories` → `"categories"`: each category with its count, in name order.
    case categories([CategoryInfo])
    /// `set-category` → `"categorized"`: the utensil with its new category.
    case categorized(UtensilInfo)
    /// `trash` → `"trash"`: the utensils in the trash (with `trashedAt` and `purgeAt`), longest there first.
    case trash([UtensilInfo])
    /// `restore` → `"restored"`: the utensil back in the catalog.
    case restored(UtensilInfo)
    /// `rethumb` → `"rethumb"`: the run just started.
    case rethumb(RethumbInfo)
    /// `events`, first line → `"subscribed": true`: events from now on will follow.
    case subscribed
    /// `events`, every later line → `"event"`.
    case event(EventInfo)

    /// The JSON key this payload sits under.
    public var key: String { Key(self).rawValue }

    enum Key: String, CodingKey, CaseIterable {
        case status, list, utensil, rejected, retried, check, deleted, renamed, subscribed, event, categories, categorized, trash, restored, rethumb

        init(_ payload: ControlPayload) {
            switch payload {
            case .status: self = .status
            case .list: self = .list
            case .utensil: self = .utensil
            case .rejected: self = .rejected
            case .retried: self = .retried
            case .check: self = .check
            case .deleted: self = .deleted
            case .renamed: self = .renamed
            case .subscribed: self = .subscribed
            case .event: self = .event
            case .categories: self = .categories
            case .categorized: self = .categorized
            case .trash: self = .trash
            case .restored: self = .restored
            case .rethumb: self = .rethumb
            }
        }
    }
}

extension ControlPayload {
    func encode(into container: inout KeyedEncodingContainer<Key>) throws {
        let key = Key(self)
        switch self {
        case .status(let value): try container.encode(value, forKey: key)
        case .list(let value): try container.encode(value, forKey: key)
        case .utensil(let value), .deleted(let value), .renamed(let value), .categorized(let value),
             .restored(let value):
            try container.encode(value, forKey: key)
        case .rejected(let value): try container.encode(value, forKey: key)
        case .retried(let value, _): try container.encode(value, forKey: key)
        case .check(let value): try container.encode(value, forKey: key)
        case .subscribed: try container.encode(true, forKey: key)
        case .event(let value): try container.encode(value, forKey: key)
        case .categories(let value): try container.encode(value, forKey: key)
        case .trash(let value): try container.encode(value, forKey: key)
        case .rethumb(let value): try container.encode(value, forKey: key)
        }
    }

    /// Keys that may stand beside a payload's own key.
    enum CompanionKey: String, CodingKey {
        case notRetried
    }

    /// Writes what stands beside the payload's key (`notRetried` beside `retried`).
    func encodeCompanions(into container: inout KeyedEncodingContainer<CompanionKey>) throws {
        if case .retried(_, let failures) = self, !failures.isEmpty {
            try container.encode(failures, forKey: .notRetried)
        }
    }

    /// Decodes the one payload key present; none or several is a decoding error.
    init(from container: KeyedDecodingContainer<Key>, companions: KeyedDecodingContainer<CompanionKey>) throws {
        let present = Key.allCases.filter(container.contains)
        guard present.count == 1, let key = present.first else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: container.codingPath,
                debugDescription: "A successful reply needs exactly one payload key, found \(present.map(\.rawValue))."))
        }
        switch key {
        case .status: self = .status(try container.decode(StatusInfo.self, forKey: key))
        case .list: self = .list(try container.decode(UtensilPage.self, forKey: key))
        case .utensil: self = .utensil(try container.decode(UtensilInfo.self, forKey: key))
        case .rejected: self = .rejected(try container.decode([RejectedInfo].self, forKey: key))
        case .retried:
            self = .retried(
                try container.decode([String].self, forKey: key),
                notRetried: try companions.decodeIfPresent([RetryFailure].self, forKey: .notRetried) ?? [])
        case .check: self = .check(try container.decode(CheckReport.self, forKey: key))
        case .deleted: self = .deleted(try container.decode(UtensilInfo.self, forKey: key))
        case .renamed: self = .renamed(try container.decode(UtensilInfo.self, forKey: key))
        case .subscribed: self = .subscribed
        case .event: self = .event(try container.decode(EventInfo.self, forKey: key))
        case .categories: self = .categories(try container.decode([CategoryInfo].self, forKey: key))
        case .categorized: self = .categorized(try container.decode(UtensilInfo.self, forKey: key))
        case .trash: self = .trash(try container.decode([UtensilInfo].self, forKey: key))
        case .restored: self = .restored(try container.decode(UtensilInfo.self, forKey: key))
        case .rethumb: self = .rethumb(try container.decode(RethumbInfo.self, forKey: key))
        }
    }
}
