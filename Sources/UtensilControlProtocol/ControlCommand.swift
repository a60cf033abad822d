/// What a request asks the daemon to do; encoded as its raw value in `"command"`.
public enum ControlCommand: String, Codable, Sendable, CaseIterable {
    case status
    case list
    case show
    case delete
    case rename
    case rejected
    case retry
    case check
    case events
    case categories
    case setCategory = "set-category"
    case trash
    case restore
    case rethumb
}
