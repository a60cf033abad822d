import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// What became of one drop.
public enum IngestOutcome: Sendable {
    /// The drop is now this utensil and has left the inbox.
    case ingested(UtensilRecord)
    /// The drop had already been committed before an interruption; it was only removed now.
    case alreadyIngested(UtensilRecord)
    /// The drop was moved to `rejected/` (as `rejectedAs`) beside its sidecar.
    case rejected(Rejection, rejectedAs: String)
    /// Not the drop's fault (disk full, database busy …): it stays in the inbox for a retry.
    case retryLater(TransientFailure)
    /// The drop disappeared (or was replaced) while it was being looked at: nothing to do.
    case vanished
}

/// A failure that is not the drop's fault: the drop stays where it is and is tried again.
public struct TransientFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case diskFull = "disk-full"
        case catalogUnavailable = "catalog-unavailable"
        /// The storage (a bucket) did not answer, or failed in a way worth retrying.
        case storageUnavailable = "storage-unavailable"
        case ioError = "io-error"
        case stillChanging = "still-changing"
        /// Another host watching the same inbox holds the drop's claim: it is ingesting it.
        case takenByAnotherHost = "taken-by-another-host"
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package init(_ error: SystemError) {
        self.init(error.isNoSpace ? .diskFull : .ioError, error.description)
    }

    package init(_ error: CatalogError) {
        self.init(.catalogUnavailable, error.description)
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
