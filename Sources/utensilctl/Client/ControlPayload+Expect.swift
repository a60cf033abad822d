import UtensilControlProtocol

extension ControlPayload {
    /// The value of the payload case `extract` picks, or an unreadable-reply error naming
    /// what came instead.
    func expect<Value>(_ what: String, _ extract: (ControlPayload) -> Value?) throws(ClientError) -> Value {
        guard let value = extract(self) else {
            throw .unreadableReply("expected \"\(what)\", got \"\(key)\"")
        }
        return value
    }

    var statusInfo: StatusInfo? { if case .status(let value) = self { value } else { nil } }
    var page: UtensilPage? { if case .list(let value) = self { value } else { nil } }
    var shown: UtensilInfo? { if case .utensil(let value) = self { value } else { nil } }
    var rejectedFiles: [RejectedInfo]? { if case .rejected(let value) = self { value } else { nil } }
    var retriedFiles: [String]? { if case .retried(let value, _) = self { value } else { nil } }
    var retryFailures: [RetryFailure] { if case .retried(_, let failures) = self { failures } else { [] } }
    var checkReport: CheckReport? { if case .check(let value) = self { value } else { nil } }
    var deletedUtensil: UtensilInfo? { if case .deleted(let value) = self { value } else { nil } }
    var renamedUtensil: UtensilInfo? { if case .renamed(let value) = self { value } else { nil } }
    var categoryList: [CategoryInfo]? { if case .categories(let value) = self { value } else { nil } }
    var categorizedUtensil: UtensilInfo? { if case .categorized(let value) = self { value } else { nil } }
    var trashedUtensils: [UtensilInfo]? { if case .trash(let value) = self { value } else { nil } }
    var restoredUtensil: UtensilInfo? { if case .restored(let value) = self { value } else { nil } }
    var rethumbRun: RethumbInfo? { if case .rethumb(let value) = self { value } else { nil } }
}
