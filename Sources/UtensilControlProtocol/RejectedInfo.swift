import Foundation

/// One file in `rejected/`, from its sidecar.
public struct RejectedInfo: Codable, Sendable, Equatable {
    /// The file's name in `rejected/` (what `retry` takes).
    public var file: String
    /// The rejection reason, e.g. `corrupt-image` (see the contract's list).
    public var reason: String
    /// One sentence a person understands.
    public var message: String
    public var rejectedAt: Date
    public var bytes: Int

    public init(file: String, reason: String, message: String, rejectedAt: Date, bytes: Int) {
        self.file = file
        self.reason = reason
        self.message = message
        self.rejectedAt = rejectedAt
        self.bytes = bytes
    }
}
