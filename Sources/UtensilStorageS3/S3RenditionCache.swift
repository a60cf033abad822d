import Foundation
import Synchronization
import UtensilCore
import UtensilStorage

/// The bucket's small renditions (thumbnails and grid squares) kept in memory, so that the
/// gallery serves a grid without a HEAD and a GET per picture: at most ``maxBytes`` of them,
/// the least recently used dropped first, each kept for at most ``timeToLive``.
///
/// The version is the object's own ETag (the gallery's `?v=` is the catalog's and does not
/// change on a rethumb), so an entry is the HEAD's answer and the bytes of one GET, trusted
/// for ``timeToLive``. This host's publishes and deletes drop the entry at once (a replaced
/// photo is never served stale here); an entry asked under another name of the version
/// than it was read for (the gallery's `?v=`, new after a replacement on another host) is
/// read again; another host's rethumb is seen at most ``timeToLive`` later.
///
/// An absence is kept too, for the same ``timeToLive``: a rendition the bucket has not (a
/// grid square of a utensil made before there were any, or not made yet) is asked of it once
/// per ``timeToLive``, not at each view of a grid, at most ``maxAbsent`` of them (the oldest
/// forgotten first). This host's publishes and deletes forget an absence at once, as they
/// drop an entry: a square made by `rethumb` here is served at its next request.
public final class S3RenditionCache: Sendable {
    /// The default bound: 32 MiB, some 1,500 thumbnails or 400 grid squares.
    public static let defaultMaxBytes = 32 << 20
    /// The default time an entry is trusted without asking the bucket.
    public static let defaultTimeToLive: Duration = .seconds(10)
    /// The default bound of absences kept: some 80 pages of a grid's 50 cards.
    public static let defaultMaxAbsent = 4096
    /// The renditions kept: the small ones a grid shows.
    public static let kept: Set<Rendition> = [.thumbnail, .square]

    public let maxBytes: Int
    public let timeToLive: Duration
    /// The most absences held at once.
    public let maxAbsent: Int

    struct Entry {
        var status: RenditionStatus
        var bytes: [UInt8]
        var fetched: ContinuousClock.Instant
        /// The version the reader named when it was read (the gallery's `?v=`), if any.
        var askedAs: String?
    }

    /// A rendition the bucket answered it has not.
    struct Absence {
        var fetched: ContinuousClock.Instant
        var askedAs: String?
    }

    struct State {
        var entries: [RenditionKey: Entry] = [:]
        /// Least recently used first.
        var order: [RenditionKey] = []
        var bytes = 0
        var absent: [RenditionKey: Absence] = [:]
        /// Oldest first.
        var absentOrder: [RenditionKey] = []
        /// Bumped by each drop, so that a fill begun before it is not kept.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    public init(maxBytes: Int = defaultMaxBytes, timeToLive: Duration = defaultTimeToLive, maxAbsent: Int = defaultMaxAbsent) {
        self.maxBytes = maxBytes
        self.timeToLive = timeToLive
        self.maxAbsent = maxAbsent
    }

    /// The bytes held now (never more than ``maxBytes``).
    public var bytes: Int { state.withLock { $0.bytes } }

    /// The entries held now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// The absences held now (never more than ``maxAbsent``).
    public var absentCount: Int { state.withLock { $0.absent.count } }

    /// A fresh entry of `key`, marked as used; nil when there is none, it is too old, or it
    /// was read for another name of the version than `version` (when one is given).
    func entry(_ key: RenditionKey, askedAs version: String? = nil) -> (status: RenditionStatus, bytes: [UInt8])? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            guard now - entry.fetched < timeToLive, version == nil || entry.askedAs == version else {
                Self.drop(key, from: &state)
                return nil
            }
            state.order.removeAll { $0 == key }
            state.order.append(key)
            return (entry.status, entry.bytes)
        }
    }

    /// Whether `key` was found missing less than ``timeToLive`` ago (and, when `version` is
    /// given, asked under that name of the version then); an older absence is forgotten.
    func isAbsent(_ key: RenditionKey, askedAs version: String? = nil) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let absence = state.absent[key] else { return false }
            guard now - absence.fetched < timeToLive, version == nil || absence.askedAs == version else {
                Self.forgetAbsence(key, from: &state)
                return false
            }
            return true
        }
    }

    /// Keeps that a fill begun at `generation` found `key` missing, unless a drop came since.
    func keepAbsent(_ key: RenditionKey, askedAs version: String? = nil, since generation: UInt64) {
        guard Self.kept.contains(key.rendition), maxAbsent > 0 else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.generation == generation else { return }
            Self.drop(key, from: &state)
            state.absent[key] = Absence(fetched: now, askedAs: version)
            state.absentOrder.append(key)
            while state.absent.count > maxAbsent, let oldest = state.absentOrder.first { Self.forgetAbsence(oldest, from: &state) }
        }
    }

    /// The generation to hand to ``keep(_:status:bytes:askedAs:since:)`` for a fill begun now.
    func generation() -> UInt64 { state.withLock { $0.generation } }

    /// Keeps what a fill begun at `generation` read, unless a drop came since or it is too large.
    func keep(_ key: RenditionKey, status: RenditionStatus, bytes: [UInt8], askedAs version: String? = nil, since generation: UInt64) {
        guard Self.kept.contains(key.rendition), bytes.count <= maxBytes / 8 else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.generation == generation else { return }
            Self.drop(key, from: &state)
            Self.forgetAbsence(key, from: &state)
            state.entries[key] = Entry(status: status, bytes: bytes, fetched: now, askedAs: version)
            state.order.append(key)
            state.bytes += bytes.count
            while state.bytes > maxBytes, let oldest = state.order.first { Self.drop(oldest, from: &state) }
        }
    }

    /// Forgets `key`, held or absent (published, replaced or deleted by this host).
    func drop(_ key: RenditionKey) {
        state.withLock { state in
            state.generation &+= 1
            Self.drop(key, from: &state)
            Self.forgetAbsence(key, from: &state)
        }
    }

    private static func forgetAbsence(_ key: RenditionKey, from state: inout State) {
        guard state.absent.removeValue(forKey: key) != nil else { return }
        state.absentOrder.removeAll { $0 == key }
    }

    private static func drop(_ key: RenditionKey, from state: inout State) {
        guard let entry = state.entries.removeValue(forKey: key) else { return }
        state.order.removeAll { $0 == key }
        state.bytes -= entry.bytes.count
    }
}
