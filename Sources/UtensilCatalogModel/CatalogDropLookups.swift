import Foundation

/// What the catalog says of a drop before a byte of it is read (``CatalogBackend/lookUp(drop:claiming:)``).
public struct DropLookup: Sendable, Equatable {
    /// Whether this host holds the drop's claim: true when no claim was asked for.
    public var claimed: Bool
    /// A utensil that came from the same file (``CatalogBackend/utensil(sameFileAs:)``).
    public var sameFile: UtensilRecord?
    /// How many times decoding the file crashed the decoder (``CatalogBackend/decoderCrashes(sourceKey:)``).
    public var decoderCrashes: Int

    public init(claimed: Bool, sameFile: UtensilRecord?, decoderCrashes: Int) {
        self.claimed = claimed
        self.sameFile = sameFile
        self.decoderCrashes = decoderCrashes
    }
}

/// A lease to take with a ``DropLookup``: the arguments of ``CatalogDuties/claimDuty(_:for:now:until:)``.
public struct DutyClaim: Sendable, Equatable {
    public var duty: String
    public var host: String
    public var now: Date
    public var until: Date

    public init(duty: String, host: String, now: Date, until: Date) {
        self.duty = duty
        self.host = host
        self.now = now
        self.until = until
    }
}

/// The utensils a new photo would clash with (``CatalogBackend/duplicates(nameKey:sha256:)``).
public struct DuplicateCandidates: Sendable, Equatable {
    /// ``CatalogBackend/utensil(nameKey:)``.
    public var byName: UtensilRecord?
    /// ``CatalogBackend/utensil(sha256:)``.
    public var byContent: UtensilRecord?

    public init(byName: UtensilRecord?, byContent: UtensilRecord?) {
        self.byName = byName
        self.byContent = byContent
    }
}

/// The look-ups of a drop asked one by one: a backend whose calls are cheap (SQLite in the
/// daemon's own process) keeps these; one whose every call is a round trip to a server
/// answers each in one statement.
extension CatalogBackend {
    public func lookUp(drop fileIdentity: String, claiming claim: DutyClaim?) async throws(CatalogError) -> DropLookup {
        var claimed = true
        if let claim {
            claimed = try await claimDuty(claim.duty, for: claim.host, now: claim.now, until: claim.until)
        }
        return DropLookup(
            claimed: claimed, sameFile: try await utensil(sameFileAs: fileIdentity),
            decoderCrashes: try await decoderCrashes(sourceKey: fileIdentity))
    }

    public func duplicates(nameKey: String, sha256: String) async throws(CatalogError) -> DuplicateCandidates {
        DuplicateCandidates(byName: try await utensil(nameKey: nameKey), byContent: try await utensil(sha256: sha256))
    }
}
