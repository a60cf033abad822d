import Foundation
import UtensilStorage

/// Committed utensils whose renditions are still staged: the storage stopped answering between
/// a commit and its publish (a bucket's server going down mid-burst). Each stays in
/// ``unplacedCommits`` and its drop in the inbox, so that the utensil does not wait for the
/// next start without its files: the publish is tried again before every commit and by the
/// drop's retry, which takes the drop as ingested only once its files are in place
/// (``awaitsItsFiles(_:)``). Should the host stop first, start-up recovery publishes them.
extension UtensilStore {
    /// Publishes again the renditions of every utensil in ``unplacedCommits``; those the
    /// storage still does not take wait for the next try.
    func placeUnplacedFiles() {
        let unplaced = unplacedCommits.withLock { commits in
            defer { commits = [] }
            return commits
        }
        guard !unplaced.isEmpty else { return }
        snapshotGate.passing {
            for pending in unplaced {
                do throws(StorageError) {
                    try republish(pending)
                    logger.notice(
                        "The files of \(pending.record.name) are in place now that the storage takes them",
                        metadata: .journal([.utensilID: .string(pending.record.id.uuidString)]))
                } catch {
                    unplacedCommits.withLock { $0.append(pending) }
                }
            }
        }
    }

    /// Whether utensil `id` is committed but its renditions are not yet in place.
    package func awaitsItsFiles(_ id: UUID) -> Bool {
        unplacedCommits.withLock { commits in commits.contains { $0.record.id == id } }
    }

    /// Publishes what `pending` still has staged: a rendition the cut-off publish already put in
    /// place (not staged, and live) is passed over, one in its way (a replaced photo's) is deleted first, as recovery
    /// does, and so is a replaced original of another type.
    private func republish(_ pending: PendingUtensil) throws(StorageError) {
        try faults.publishing(pending.record.name)
        let staged = pending.staged
        let new = Set(staged.renditions.map(staged.key))
        let stale = pending.replacing.map { old in
            staged.renditions.map { RenditionKey($0, of: old.id, originalExtension: old.fileExtension) }.filter { !new.contains($0) }
        } ?? []
        try storageCall { storage async throws(StorageError) in
            for key in stale { try await storage.delete(key) }
            var remaining = staged
            for _ in 0...staged.renditions.count {
                guard !remaining.renditions.isEmpty else { return }
                do throws(StorageError) {
                    return try await Self.publishOver(remaining, in: storage)
                } catch .notStaged(let key) {
                    // Passed over only if it is live: a staged object the storage did not find
                    // for a moment (a bucket's server busy) is not taken as published.
                    do throws(StorageError) {
                        _ = try await storage.size(of: key)
                    } catch .notFound {
                        throw .notStaged(key)
                    }
                    remaining = staged.keeping(remaining.renditions.subtracting([key.rendition]))
                }
            }
        }
    }
}
