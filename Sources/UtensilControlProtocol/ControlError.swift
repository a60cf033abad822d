/// Why a request failed; the stable `code` is for programs, `message` for people.
public struct ControlError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var code: ControlErrorCode
    /// One sentence a person understands, ideally saying what to do.
    public var message: String

    public init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The stable error codes of protocol version 1; encoded as their raw values.
public enum ControlErrorCode: String, Codable, Sendable, CaseIterable {
    /// No utensil (or rejected file) with that id or name.
    case notFound = "not-found"
    /// A new name fails the same validation as a drop's name.
    case invalidName = "invalid-name"
    /// Another utensil already has that name (with `duplicate_names = "reject"`).
    case duplicateName = "duplicate-name"
    /// The peer may read but not change (`delete`, `rename`, `retry`, `set-category`, `restore`).
    case permissionDenied = "permission-denied"
    /// The line is not a valid request: bad JSON, unknown command, missing argument.
    case badRequest = "bad-request"
    /// The request line is longer than `ControlProtocol.maximumLineBytes`; the server closes.
    case requestTooLarge = "request-too-large"
    /// The request's `"v"` is not a version this server speaks.
    case unsupportedVersion = "unsupported-version"
    /// Too many clients, or the catalog is momentarily locked: try again shortly.
    case busy
    /// Something went wrong inside the daemon; its log says more.
    case `internal`
}

extension ControlError {
    /// The reply to a line longer than `ControlProtocol.maximumLineBytes`, before closing.
    public static let requestTooLarge = ControlError(
        .requestTooLarge,
        "The request is longer than \(ControlProtocol.maximumLineBytes) bytes; send a shorter one.")

    /// The reply to a client past `ControlProtocol.maximumClients`, before closing.
    public static let tooManyClients = ControlError(
        .busy, "utensild is serving as many clients as it allows; try again in a moment.")

    /// The reply to a client whose user already holds `limit` connections, before closing.
    public static func tooManyForUser(limit: Int) -> ControlError {
        ControlError(
            .busy,
            "You already have \(limit) connections to utensild open, the most one user may; close some (an `utensilctl events` left running, say) and try again.")
    }
}
