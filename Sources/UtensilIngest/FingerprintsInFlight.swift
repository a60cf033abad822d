import Foundation
import UtensilStore

/// The fingerprints of prepared drops not yet committed, by their utensil's id
/// (`near_duplicates` on): a drop near one of them waits for it, so that a photo and its copy
/// dropped together are not both taken for new (the later is looked up once the earlier is
/// committed or dropped).
///
/// The wait is on the drop's thread, its decode done: a burst of shots of one scene, each near
/// the last, goes through one after another with one decode each, where handing every drop
/// back for a retry would decode it again at each try and, the retries backing off, take
/// minutes. A holder never waits for a waiter (it holds only once nothing near it is held), and
/// its commit runs on a thread of its own, so the wait ends with the holder's commit or
/// failure; ``hold(_:of:waitingUpTo:)``'s patience bounds it all the same.
package final class FingerprintsInFlight: @unchecked Sendable {
    // `held` and `waiters` are read and changed only with `condition` locked.
    private let condition = NSCondition()
    private var held: [UUID: Int64] = [:]
    private var waiters = 0

    /// Holds `fingerprint` as utensil `id`'s. While another's near it is held, waits up to
    /// `patience` for it to be released; false when one still is.
    func hold(_ fingerprint: Int64, of id: UUID, waitingUpTo patience: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(patience.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while anotherNear(fingerprint, besides: id) {
            waiters += 1
            let signalled = condition.wait(until: deadline)
            waiters -= 1
            if !signalled, anotherNear(fingerprint, besides: id) { return false }
        }
        held[id] = fingerprint
        return true
    }

    /// Whether a fingerprint near `fingerprint` is held for another utensil than `id`; with
    /// `condition` locked.
    private func anotherNear(_ fingerprint: Int64, besides id: UUID) -> Bool {
        held.contains { other, theirs in other != id && PhotoFingerprint.areNear(fingerprint, theirs) }
    }

    /// Releases utensil `id`'s fingerprint (committed, or its drop dropped) and wakes the drops
    /// waiting for one; releasing one not held is fine.
    func release(_ id: UUID) {
        condition.lock()
        defer { condition.unlock() }
        guard held.removeValue(forKey: id) != nil else { return }
        condition.broadcast()
    }

    /// How many drops are waiting for a held fingerprint now (for tests).
    package var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiters
    }
}
