/// A rejected file `retry` could not move back into the inbox, and why.
public struct RetryFailure: Codable, Sendable, Equatable {
    /// The file's name in `rejected/`, as `rejected` shows it.
    public var file: String
    /// One sentence a person understands.
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }
}
