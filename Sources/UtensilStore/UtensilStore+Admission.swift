import Foundation
import UtensilCatalogModel
import UtensilCore

/// What the catalog says of a drop before it is decoded: whether it was committed before a
/// crash, whether it is another name for a file already ingested, how often it crashed the
/// decoder, and what the duplicate rules in force make of it. The ingest engine asks here;
/// it never reads the catalog itself.
extension UtensilStore {
    /// The utensil committed from exactly this inbox entry (`UtensilRecord.sourceKey`): a drop
    /// whose commit happened just before a crash.
    package func utensil(committedFrom sourceKey: String) throws(CatalogError) -> UtensilRecord? {
        try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.utensil(sourceKey: sourceKey) }
    }

    /// What the catalog says of a drop before it is read, in one call: the utensil ingested from
    /// the same file (device, inode, size, mtime: a hard link, or this very drop committed
    /// before a crash), how often the file crashed the decoder, and, with `claim` (other hosts
    /// may watch the same inbox), whether this host holds the drop: a lease of
    /// ``dropClaimLease`` in the catalog's duties (`drop:KEY`), renewed by each attempt of this
    /// host. Not claimed while another host holds it: that host is ingesting it.
    package func lookUp(drop sourceKey: String, fileIdentity: String, claim: Bool, now: Date = Date()) throws(CatalogError) -> DropLookup {
        let claim = claim
            ? DutyClaim(duty: "drop:" + sourceKey, host: settings.hostName, now: now, until: now.addingTimeInterval(Self.dropClaimLease))
            : nil
        return try CatalogAwait.run { [catalog] () async throws(CatalogError) in
            try await catalog.lookUp(drop: fileIdentity, claiming: claim)
        }
    }

    /// How long a drop stays claimed by a host that stopped working on it (it died, or lost the
    /// catalog) before another host may take it: far longer than one attempt at a drop takes.
    static let dropClaimLease: TimeInterval = 120

    /// The duplicate rules in force (`duplicate_names`, `duplicate_content`) applied to a new
    /// photo named `name` with content `sha256`. The catalog enforces them again at the commit,
    /// through the claims this returns.
    package func admission(name: UtensilName, sha256: String) throws(CatalogError) -> Admission {
        try beginAdmission(name: name, sha256: sha256).result()
    }

    /// ``admission(name:sha256:)`` begun on this thread: the catalog is asked now, and the
    /// answer taken in by ``PendingAdmission/result()``. A catalog on a server answers while
    /// the thread does other work (the drop's decode); one in the daemon's own process
    /// (SQLite) has answered by the time this returns.
    package func beginAdmission(name: UtensilName, sha256: String) -> PendingAdmission {
        let call = CatalogAwait.start { [catalog] () async throws(CatalogError) in
            try await catalog.duplicates(nameKey: name.uniquenessKey, sha256: sha256)
        }
        return PendingAdmission(call: call, settings: settings)
    }
}

/// An ``UtensilStore/admission(name:sha256:)`` under way (``UtensilStore/beginAdmission(name:sha256:)``).
package final class PendingAdmission {
    private let call: CatalogCallInFlight<DuplicateCandidates, CatalogError>
    private let settings: IngestSettings

    fileprivate init(call: CatalogCallInFlight<DuplicateCandidates, CatalogError>, settings: IngestSettings) {
        self.call = call
        self.settings = settings
    }

    /// Whether the catalog has answered already, so that ``result()`` will not wait.
    package var isAnswered: Bool { call.isAnswered }

    /// Whether the photo may become a new utensil: the catalog has not answered yet, or has
    /// and its answer makes one (not a refusal, a duplicate, or a replacement).
    package var mayBeNew: Bool {
        guard isAnswered else { return true }
        guard case .new = try? result() else { return false }
        return true
    }

    /// What the duplicate rules make of the photo, once the catalog has answered.
    package func result() throws(CatalogError) -> Admission {
        let candidates = try call.result()
        if settings.rejectDuplicateNames, let existing = candidates.byName { return .nameTaken(by: existing) }
        if settings.rejectDuplicateContent, let existing = candidates.byContent { return .contentTaken(by: existing) }
        let claims = Claims(name: settings.claimsNames, content: settings.rejectDuplicateContent)
        if settings.replaceDuplicateNames, let existing = candidates.byName { return .replaces(existing, claims) }
        return .new(claims)
    }
}

/// What the duplicate rules make of a new photo (see ``UtensilStore/admission(name:sha256:)``).
package enum Admission: Sendable {
    /// A new utensil.
    case new(Claims)
    /// `duplicate_names = "replace"`: it becomes the photo of this utensil.
    case replaces(UtensilRecord, Claims)
    /// `duplicate_names = "reject"` and this utensil has the name.
    case nameTaken(by: UtensilRecord)
    /// `duplicate_content = "reject"` and this utensil is the same photo.
    case contentTaken(by: UtensilRecord)
}

/// Which of a new row's UNIQUE claim columns the store fills (`nameClaim`, `contentClaim`),
/// so that the catalog itself refuses a duplicate that slipped past ``Admission`` concurrently.
package struct Claims: Sendable, Equatable {
    let name: Bool
    let content: Bool

    /// `record` with its claim columns set as these say.
    package func applied(to record: UtensilRecord) -> UtensilRecord {
        var record = record
        record.nameClaim = name ? record.nameKey : nil
        record.contentClaim = content ? record.sha256 : nil
        return record
    }
}
