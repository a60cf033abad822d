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
public final class S3RenditionCache: Sendable {
    /// The default bound: 32 MiB, some 1,500 thumbnails or 400 grid squares.
    public static let defaultMaxBytes = 32 << 20
    /// The default time an entry is trusted without asking the bucket.
    public static let defaultTimeToLive: Duration = .seconds(10)
    /// The renditions kept: the small ones a grid shows.
    public static let kept: Set<Rendition> = [.thumbnail, .square]

    public let maxBytes: Int
    public let timeToLive: Duration

    struct Entry {
        var status: RenditionStatus
        var bytes: [UInt8]
        var fetched: ContinuousClock.Instant
        /// The version the reader named when it was read (the gallery's `?v=`), if any.
        var askedAs: String?
    }

    struct State {
        var entries: [RenditionKey: Entry] = [:]
        /// Least recently used first.
        var order: [RenditionKey] = []
        var bytes = 0
        /// Bumped by each drop, so that a fill begun before it is not kept.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    public init(maxBytes: Int = defaultMaxBytes, timeToLive: Duration = defaultTimeToLive) {
        self.maxBytes = maxBytes
        self.timeToLive = timeToLive
    }

    /// The bytes held now (never more than ``maxBytes``).
    public var bytes: Int { state.withLock { $0.bytes } }

    /// The entries held now.
    public var count: Int { state.withLock { $0.entries.count } }

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

    /// The generation to hand to ``keep(_:status:bytes:askedAs:since:)`` for a fill begun now.
    func generation() -> UInt64 { state.withLock { $0.generation } }

    /// Keeps what a fill begun at `generation` read, unless a drop came since or it is too large.
    func keep(_ key: RenditionKey, status: RenditionStatus, bytes: [UInt8], askedAs version: String? = nil, since generation: UInt64) {
        guard Self.kept.contains(key.rendition), bytes.count <= maxBytes / 8 else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.generation == generation else { return }
            Self.drop(key, from: &state)
            state.entries[key] = Entry(status: status, bytes: bytes, fetched: now, askedAs: version)
            state.order.append(key)
            state.bytes += bytes.count
            while state.bytes > maxBytes, let oldest = state.order.first { Self.drop(oldest, from: &state) }
        }
    }

    /// Forgets `key` (published, replaced or deleted by this host).
    func drop(_ key: RenditionKey) {
        state.withLock { state in
            state.generation &+= 1
            Self.drop(key, from: &state)
        }
    }

    private static func drop(_ key: RenditionKey, from state: inout State) {
        guard let entry = state.entries.removeValue(forKey: key) else { return }
        state.order.removeAll { $0 == key }
        state.bytes -= entry.bytes.count
    }
}
