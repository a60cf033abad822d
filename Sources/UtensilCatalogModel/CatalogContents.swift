import Foundation

/// A whole catalog as plain values: what a backend without a SQLite file of its own hands to
/// a ``CatalogSnapshotWriter`` to write a backup's `utensils.sqlite`, and what
/// `utensild restore` reads from a backup's `utensils.sqlite` to load into another backend
/// (``CatalogLoading/load(_:)``). Categories and their counts are not listed: they follow
/// from the utensils. Hosts and duties are not part of it: they describe running daemons,
/// not the catalog.
public struct CatalogContents: Sendable, Equatable {
    /// Every utensil, the trash too, in id order.
    public var utensils: [UtensilRecord]
    /// Every favorite mark.
    public var favorites: [CatalogFavorite]
    /// The decoder crashes counted on drops still in the inbox (see
    /// ``CatalogBackend/recordDecoderCrash(sourceKey:)``).
    public var decoderCrashes: [CatalogDecoderCrash]
    /// The pairs of utensils marked "not a copy" (``CatalogLookalikes/markNotACopy(_:_:)``),
    /// in order.
    public var notACopy: [CatalogNotACopy]

    public init(
        utensils: [UtensilRecord], favorites: [CatalogFavorite], decoderCrashes: [CatalogDecoderCrash] = [],
        notACopy: [CatalogNotACopy] = []
    ) {
        self.utensils = utensils
        self.favorites = favorites
        self.decoderCrashes = decoderCrashes
        self.notACopy = notACopy
    }
}

/// Two utensils marked as not copies of each other, the smaller id (in `uuidString` order) first.
public struct CatalogNotACopy: Sendable, Equatable {
    public var utensilID: UUID
    public var otherID: UUID

    /// The pair of `id` and `other`, in either order.
    public init(_ id: UUID, _ other: UUID) {
        (utensilID, otherID) = id.uuidString <= other.uuidString ? (id, other) : (other, id)
    }
}

/// How many times the drop with one source key crashed the decoder.
public struct CatalogDecoderCrash: Sendable, Equatable {
    public var sourceKey: String
    public var crashes: Int

    public init(sourceKey: String, crashes: Int) {
        self.sourceKey = sourceKey
        self.crashes = crashes
    }
}

/// One user's mark on one utensil.
public struct CatalogFavorite: Sendable, Equatable {
    public var user: String
    public var utensilID: UUID

    public init(user: String, utensilID: UUID) {
        self.user = user
        self.utensilID = utensilID
    }
}

/// Writes ``CatalogContents`` as a new SQLite catalog file (the SQLite backend's
/// `SQLiteSnapshotWriter`): how a backend that does not touch SQLite itself satisfies
/// ``CatalogSnapshot/writeSQLite(to:)``.
public protocol CatalogSnapshotWriter: Sendable {
    /// Writes `contents` as a new SQLite catalog at `path` (a file that does not exist), in
    /// rollback-journal mode, made durable.
    func writeSQLite(_ contents: CatalogContents, to path: String) throws(CatalogError)
}
