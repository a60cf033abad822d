extension ControlCommand {
    /// `rethumb`: regenerate thumbnails from originals, in the background; one of `"all": true`,
    /// `"missing": true` and `"targets"`.
    public static let rethumb = ControlCommand(
        "rethumb", replyKey: "rethumb", access: .changes,
        decode: { arguments in
            let targets = try arguments.optional("targets", as: [String].self) ?? []
            let chosen: [RethumbSelection] =
                (try arguments.flag("all") ? [.all] : []) + (try arguments.flag("missing") ? [.missing] : [])
                + (targets.isEmpty ? [] : [.utensils(targets)])
            guard chosen.count == 1, let selection = chosen.first else {
                throw ControlError(.badRequest, chosen.isEmpty
                    ? "The rethumb command needs \"all\": true, \"missing\": true or \"targets\": the ids of utensils."
                    : "Rethumb takes one of \"all\", \"missing\" and \"targets\", not several.")
            }
            return .rethumb(selection)
        },
        encode: { request, arguments in
            guard case .rethumb(let selection) = request else { return }
            switch selection {
            case .all: try arguments.flag(true, "all")
            case .missing: try arguments.flag(true, "missing")
            case .utensils(let ids): try arguments.write(ids, "targets")
            }
        })
}

extension ControlCall where Reply == RethumbReport {
    public static func rethumb(_ selection: RethumbSelection) -> Self { Self(.rethumb(selection)) }
}

/// Which thumbnails `rethumb` regenerates.
public enum RethumbSelection: Sendable, Equatable {
    /// Every utensil's (`"all": true`).
    case all
    /// Those whose thumbnail or preview file is missing or whose row has no fingerprint
    /// (`"missing": true`).
    case missing
    /// These utensils', by id (`"targets": [ID, …]`).
    case utensils([String])
}
