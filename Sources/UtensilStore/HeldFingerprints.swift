import Foundation
import Logging
import Synchronization
import UtensilCatalogModel

/// The store's near-neighbour look-up through a ``FingerprintMemory``, kept current: loaded
/// in the background at start (``startLoading(from:logger:)``), told of this host's commits
/// (``committed(_:)``), and, before a look-up, topped up with the utensils any host committed
/// since the last top-up (re-read by creation time through the catalog's index, at most once
/// per `refreshInterval`: the look-ups of a burst share one). Until the load completes, or
/// when the top-up or a confirmation fails, ``lookalikes(of:within:limit:in:)`` answers nil
/// and the caller asks the catalog, as it did before anything was held.
final class HeldFingerprints: Sendable {
    /// How far before the start of the last top-up the next one re-reads. A utensil's
    /// creation time is stamped by its host's clock before its renditions are made, stored
    /// and committed in a batch, so its row becomes visible some seconds after the time it
    /// carries (longer for a large photo sent to object storage); and another host's clock may
    /// be behind this one's. A minute covers that lag and the skew of clocks kept by NTP (well
    /// under a second) with room, and costs one indexed read of a minute of ingests.
    static let margin: TimeInterval = 60

    let memory = FingerprintMemory()
    private let refreshInterval: Duration
    private let state = Mutex(State())

    private struct State {
        var phase = Phase.idle
        /// The creation time the next top-up reads from.
        var since = Date.distantPast
        /// When the last top-up started; nil when the next look-up tops up.
        var lastRefresh: ContinuousClock.Instant?
        /// The ids added since the load, with when each was first seen, so that windows that
        /// overlap add each utensil once; forgotten after twice the margin (they are older
        /// than any window by then).
        var recent: [UUID: Date] = [:]
        /// When the last load failed: the next is tried a minute later at the earliest.
        var failed: ContinuousClock.Instant?
    }

    private enum Phase { case idle, loading, loaded }

    /// `refreshInterval` is the least time between two top-ups.
    init(refreshInterval: Duration = .milliseconds(250)) {
        self.refreshInterval = refreshInterval
    }

    /// Whether the load has completed: look-ups go through the memory.
    var isLoaded: Bool { state.withLock { $0.phase == .loaded } }

    /// Loads every fingerprint of `catalog` in a task of its own (once; again a minute after a
    /// failed load); the returned task ends when the load has completed or failed.
    @discardableResult
    func startLoading(from catalog: any CatalogBackend, logger: Logger) -> Task<Void, Never> {
        let now = ContinuousClock.now
        let starts = state.withLock { state in
            guard state.phase == .idle, state.failed.map({ $0.duration(to: now) >= .seconds(60) }) ?? true else { return false }
            state.phase = .loading
            return true
        }
        guard starts else { return Task {} }
        return Task.detached { [self] in
            let started = Date()
            do {
                let count = try await memory.load(from: catalog)
                state.withLock { state in
                    // What was committed while the pages were read is re-read by the first top-up.
                    state = State(phase: .loaded, since: started.addingTimeInterval(-Self.margin))
                }
                logger.info("Holding \(count) fingerprints in memory for the look-up of near duplicates")
            } catch {
                state.withLock { state in
                    state.phase = .idle
                    state.failed = .now
                }
                logger.warning("The fingerprints could not be loaded (\(error)); near duplicates are looked up in the catalog")
            }
        }
    }

    /// Holds the fingerprints of `records`, just committed by this host (ingested, given a new
    /// photo, or restored from the trash).
    func committed(_ records: [UtensilRecord]) {
        let now = Date()
        state.withLock { state in
            guard state.phase == .loaded else { return }
            for record in records {
                guard let fingerprint = record.fingerprint else { continue }
                memory.add(fingerprint)
                state.recent[record.id] = now
            }
        }
    }

    /// The utensils not in the trash within `maximumDistance` bits of `fingerprint`, as
    /// ``CatalogLookalikes/lookalikes(of:within:limit:)`` answers, through the memory; nil
    /// when the memory cannot answer (not loaded yet, or the catalog failed a top-up or a
    /// confirmation).
    func lookalikes(of fingerprint: Int64, within maximumDistance: Int, limit: Int, in catalog: any CatalogBackend) async
        -> [LookalikeMatch]?
    {
        guard isLoaded else { return nil }
        do {
            try await refreshIfDue(from: catalog)
            return try await memory.lookalikes(of: fingerprint, within: maximumDistance, limit: limit, in: catalog)
        } catch {
            return nil
        }
    }

    /// Adds what was created since the last top-up less the margin, unless the last top-up
    /// started less than `refreshInterval` ago.
    private func refreshIfDue(from catalog: any CatalogBackend) async throws(CatalogError) {
        let now = ContinuousClock.now
        let since: Date? = state.withLock { state in
            if let last = state.lastRefresh, last.duration(to: now) < refreshInterval { return nil }
            state.lastRefresh = now
            return state.since
        }
        guard let since else { return }
        let started = Date()
        let found: [IdentifiedFingerprint]
        do {
            found = try await catalog.fingerprints(createdSince: since)
        } catch {
            state.withLock { $0.lastRefresh = nil }
            throw error
        }
        state.withLock { state in
            for entry in found where state.recent[entry.id] == nil {
                memory.add(entry.fingerprint)
                state.recent[entry.id] = started
            }
            state.since = max(state.since, started.addingTimeInterval(-Self.margin))
            let forgotten = started.addingTimeInterval(-2 * Self.margin)
            state.recent = state.recent.filter { $0.value >= forgotten }
        }
    }
}
