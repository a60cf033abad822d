import Foundation

extension ControlCommand {
    /// `duplicates`: the pairs of utensils whose photos look alike.
    public static let duplicates = ControlCommand("duplicates", replyKey: "duplicates", access: .reads, decode: { _ in .duplicates })

    /// `not-a-copy`: two utensils by id or name, marked as not copies of each other.
    public static let notACopy = ControlCommand(
        "not-a-copy", replyKey: "notACopy", access: .changes,
        decode: { arguments in
            .notACopy(
                try arguments.required("target", "the id or name of a utensil"),
                try arguments.required("other", "the id or name of the other utensil"))
        },
        encode: { request, arguments in
            guard case .notACopy(let target, let other) = request else { return }
            try arguments.write(target, "target")
            try arguments.write(other, "other")
        })
}

extension ControlCall where Reply == [DuplicatePairInfo] {
    /// The pairs that look alike, newest copy first (at most 1,000).
    public static var duplicates: Self { Self(.duplicates) }

    /// Marks two utensils (by id or name) "not a copy"; answers the pairs that still look alike.
    public static func notACopy(_ id: String, _ other: String) -> Self { Self(.notACopy(id, other)) }
}

/// Two utensils whose photos look alike: `copy` was ingested as a look-alike of `original`
/// (its ``UtensilInfo/nearDuplicateOf``).
public struct DuplicatePairInfo: ControlReplyElement {
    public var copy: UtensilInfo
    public var original: UtensilInfo
    /// How many of the 64 bits of the two photos' fingerprints differ (at most 12).
    public var distance: Int

    public init(copy: UtensilInfo, original: UtensilInfo, distance: Int) {
        self.copy = copy
        self.original = original
        self.distance = distance
    }
}
