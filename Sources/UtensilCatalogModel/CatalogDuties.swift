import Foundation

/// Work that one host at a time does for every host sharing a catalog (the trash purge, a
/// drop in an inbox several hosts watch), held
/// as a lease in the catalog: a host takes a duty when no other host holds an unexpired lease
/// on it, and keeps it by renewing the lease before it runs out. A host that dies stops
/// renewing, and another takes the duty over once the lease has run out.
///
/// Every ``CatalogBackend`` is one (a table `duties` in SQLite and in PostgreSQL). What every
/// implementation must keep: a claim is one atomic step, so two hosts claiming at once never
/// both get the duty; a holder's own claim always renews its lease.
public protocol CatalogDuties: Sendable {
    /// Takes or renews `duty` for `host` with a lease until `until`, unless another host holds
    /// it with a lease that has not run out at `now`.
    /// - Returns: whether `host` holds the duty after the call.
    func claimDuty(_ duty: String, for host: String, now: Date, until: Date) async throws(CatalogError) -> Bool

    /// Forgets every duty whose lease ran out before `before` (a drop of a shared inbox is a
    /// duty of its own, so leases pile up unless they are forgotten).
    /// - Returns: how many were forgotten.
    func forgetDuties(expiredBefore before: Date) async throws(CatalogError) -> Int
}
