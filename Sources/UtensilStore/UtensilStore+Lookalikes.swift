import Foundation
import UtensilCatalogModel
import UtensilCore
import UtensilLookalike
import UtensilStorage

/// Look-alikes: the utensil a new photo resembles, the pairs that look alike, and the pairs
/// marked "not a copy".
extension UtensilStore {
    /// Starts loading the catalog's fingerprints into memory in the background (the daemon,
    /// at start); from when it completes, ``nearDuplicate(of:excluding:)`` scans them instead
    /// of the catalog's block indexes. The task ends when the load has completed or failed.
    @discardableResult
    public func holdFingerprints() -> Task<Void, Never> {
        heldFingerprints.startLoading(from: catalog, logger: logger)
    }

    /// The utensil outside the trash, other than `excluded`, whose photo's fingerprint is
    /// nearest `fingerprint` within ``Fingerprint/copyThreshold``; nil when there is none.
    /// Through the held fingerprints once ``holdFingerprints()`` has loaded them; before, or
    /// when they cannot answer, through the catalog's look-up.
    ///
    /// With `preview` (the new photo's preview JPEG), each utensil found near is looked at
    /// again, finer (``CopyConfirmation``): its stored preview against `preview`, and only a
    /// copy is answered, so that two pictures alike in their layout (things shot one after
    /// another on one bench) are not taken for copies. A utensil whose preview cannot be read
    /// or decoded is answered on its fingerprint alone, but a bucket that does not answer
    /// (or refuses for now) is ``NearDuplicateLookupError/storage(_:)``: the drop waits for it
    /// rather than be taken for a copy because of an outage. A photo whose fingerprint is
    /// ``PhotoFingerprint/nonePossible`` (flat) resembles none.
    package func nearDuplicate(of fingerprint: Int64, excluding excluded: UUID?, preview: [UInt8]? = nil)
        throws(NearDuplicateLookupError) -> NearDuplicate?
    {
        guard fingerprint != PhotoFingerprint.nonePossible else { return nil }
        let catalog = catalog
        let held = heldFingerprints
        let limit = preview == nil ? 2 : Self.confirmedCandidates + 1
        let matches: [LookalikeMatch]
        do throws(CatalogError) {
            matches = try CatalogAwait.run { () async throws(CatalogError) in
                if let matches = await held.lookalikes(of: fingerprint, within: Fingerprint.copyThreshold, limit: limit, in: catalog) {
                    return matches
                }
                return try await catalog.lookalikes(of: fingerprint, within: Fingerprint.copyThreshold, limit: limit)
            }
        } catch {
            throw .catalog(error)
        }
        let candidates = matches.filter { $0.utensil.id != excluded }
        guard let preview, !candidates.isEmpty else {
            return candidates.first.map { NearDuplicate(id: $0.utensil.id, name: $0.utensil.name, distance: $0.distance) }
        }
        let miniature = PhotoFingerprint.confirmationMiniature(ofPreview: preview)
        let confirmed: LookalikeMatch?
        do throws(StorageError) {
            confirmed = try CatalogAwait.run { () async throws(StorageError) -> LookalikeMatch? in
                for candidate in candidates.prefix(Self.confirmedCandidates) {
                    if try await self.looksLikeCopy(miniature, of: candidate.utensil) { return candidate }
                }
                return nil
            }
        } catch {
            throw .storage(error)
        }
        return confirmed.map { NearDuplicate(id: $0.utensil.id, name: $0.utensil.name, distance: $0.distance) }
    }

    /// How many of the utensils found near a new photo are looked at again, nearest first.
    private static let confirmedCandidates = 3

    /// Whether the new photo's confirmation `miniature` is a copy of `utensil`'s stored
    /// preview; true when either cannot be had (the fingerprint's word stands).
    /// - Throws: the ``StorageError/objectStorage(_:)`` of a bucket that could not be read now.
    private func looksLikeCopy(_ miniature: [UInt8]?, of utensil: UtensilRecord) async throws(StorageError) -> Bool {
        guard let miniature else { return true }
        let stored: [UInt8]
        do throws(StorageError) {
            stored = try await storage.read(RenditionKey(.preview, of: utensil.id, originalExtension: utensil.fileExtension), range: nil)
        } catch .objectStorage(let failure) {
            throw .objectStorage(failure)
        } catch {
            return true  // None (a utensil from before previews), or a local file that cannot be read.
        }
        guard let theirs = PhotoFingerprint.confirmationMiniature(ofPreview: stored),
            let copies = try? CopyConfirmation().areCopies(miniature, theirs)
        else { return true }
        return copies
    }

    /// The pairs of utensils that look alike, newest copy first (see
    /// ``CatalogLookalikes/nearDuplicatePairs(limit:)``).
    public func nearDuplicatePairs(limit: Int) async throws(StoreError) -> [NearDuplicatePair] {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.nearDuplicatePairs(limit: limit) }
    }

    /// Marks two utensils "not a copy" of each other: they are no longer listed as a pair.
    /// - Throws: ``StoreError/catalog(_:)`` with ``CatalogError/notFound`` when either does not exist.
    public func markNotACopy(_ id: UUID, _ other: UUID) async throws(StoreError) {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.markNotACopy(id, other) }
    }
}

/// Why ``UtensilStore/nearDuplicate(of:excluding:preview:)`` could not answer; either way the
/// drop is retried later.
package enum NearDuplicateLookupError: Error, Sendable {
    /// The catalog could not look up the fingerprints near the photo's.
    case catalog(CatalogError)
    /// The bucket could not give the preview of a utensil found near, to confirm it.
    case storage(StorageError)
}

extension TransientFailure {
    /// A look-up of near duplicates that could not answer: as its catalog's or storage's failure.
    package init(_ error: NearDuplicateLookupError) {
        switch error {
        case .catalog(let error): self.init(error)
        case .storage(let error): self.init(error)
        }
    }
}
