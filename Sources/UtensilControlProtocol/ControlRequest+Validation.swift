import Foundation

extension ControlRequest {
    /// Checks that the arguments `command` needs are there and sensible; the server answers
    /// a failure with the thrown `bad-request` error.
    public func validate() throws(ControlError) {
        switch command {
        case .list:
            if let limit, limit < 1 {
                throw ControlError(.badRequest, "The list limit must be at least 1, not \(limit).")
            }
        case .show, .delete, .restore:
            try require(target, "target", "the id or name of a utensil")
        case .rename:
            try require(target, "target", "the id of the utensil to rename")
            try require(newName, "newName", "the new name")
        case .retry:
            if all && file != nil {
                throw ControlError(.badRequest, "Retry takes either a file or \"all\", not both.")
            }
            if !all { try require(file, "file", "a file name in the rejected folder, or \"all\": true") }
        case .setCategory:
            try require(target, "target", "the id of the utensil")
            if none && category != nil {
                throw ControlError(.badRequest, "Set-category takes either a category or \"none\": true, not both.")
            }
            if !none { try require(category, "category", "the new category, or \"none\": true") }
        case .rethumb:
            let chosen = (all ? 1 : 0) + (missing ? 1 : 0) + (ids?.isEmpty == false ? 1 : 0)
            if chosen != 1 {
                throw ControlError(.badRequest,
                    "Rethumb takes exactly one of \"all\": true, \"missing\": true or \"ids\": [utensil ids]; send one of them.")
            }
            if let bad = ids?.first(where: { UUID(uuidString: $0) == nil }) {
                throw ControlError(.badRequest, "\(bad) is not a utensil id; `utensilctl list` shows the ids.")
            }
        case .status, .rejected, .check, .events, .categories, .trash:
            break
        }
    }

    private func require(_ value: String?, _ key: String, _ what: String) throws(ControlError) {
        guard let value, !value.isEmpty else {
            throw ControlError(.badRequest, "The \(command.rawValue) command needs \"\(key)\": \(what).")
        }
    }
}
