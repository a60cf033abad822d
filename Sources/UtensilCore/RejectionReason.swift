/// The reasons a drop is rejected, exactly as the contract names them (`reason` in a sidecar).
public enum RejectionReason: String, Sendable, Codable, CaseIterable {
    case emptyName = "empty-name"
    case nameTooLong = "name-too-long"
    case nameHasLineBreak = "name-has-line-break"
    case nameHasControlCharacter = "name-has-control-character"
    case nameNotUTF8 = "name-not-utf8"
    case unsupportedType = "unsupported-type"
    case notARegularFile = "not-a-regular-file"
    case unreadable = "unreadable"
    case tooLarge = "too-large"
    case tooManyPixels = "too-many-pixels"
    case corruptImage = "corrupt-image"
    case extensionMismatch = "extension-mismatch"
    case duplicateName = "duplicate-name"
    case duplicateContent = "duplicate-content"
    case neverSettled = "never-settled"
    case decoderCrash = "decoder-crash"
    case invalidCategory = "invalid-category"
    case nearDuplicate = "near-duplicate"
}

/// A permanent failure of one drop: the contract's reason and one sentence for a person.
public struct Rejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: RejectionReason
    public var message: String

    public init(_ reason: RejectionReason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public init(_ error: NameError) {
        self.init(error.reason, error.message)
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
