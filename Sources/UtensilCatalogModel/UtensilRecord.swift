import Foundation
import UtensilCore

/// One utensil as every catalog backend stores it: a plain value, free of any database type
/// (the SQLite backend adds its GRDB conformances in `UtensilRecord+GRDB.swift`). Its coding
/// keys are the column names a backend stores it under.
public struct UtensilRecord: Codable, Sendable, Equatable {
    public var id: UUID
    /// The name as people see it (setting it sets ``sortKey``).
    public var name: String {
        didSet { sortKey = UtensilName.sortKey(for: name) }
    }
    /// NFC, case-folded: the key under which names clash.
    public var nameKey: String
    /// Case- and accent-folded: what searches match.
    public var searchKey: String
    /// `jpg`, `jpeg` or `png`: the dropped extension in lower case.
    public var fileExtension: String
    public var createdAt: Date
    /// Size of the photo as displayed (EXIF orientation applied).
    public var width: Int
    public var height: Int
    /// Size of the original in bytes.
    public var bytes: Int
    /// Lower-case hex SHA-256 of the original.
    public var sha256: String
    /// Identity of the inbox entry this utensil came from: the file's identity (device, inode,
    /// size, mtime), `@`, and a digest of its path in the inbox. A drop whose commit happened
    /// before a crash is recognised by it and not ingested twice, while another name (a hard
    /// link) for the same file is not mistaken for it. Rows of earlier versions hold the
    /// file's identity alone.
    public var sourceKey: String?
    /// `nameKey` when duplicate names are refused, else nil: a UNIQUE column, so SQLite itself
    /// enforces the policy even between concurrent ingests.
    public var nameClaim: String?
    /// `sha256` when duplicate content is refused, else nil (UNIQUE, like `nameClaim`).
    public var contentClaim: String?
    /// The inbox folder it was dropped into (`inbox/Knives/…` → `Knives`), or nil
    /// (setting it sets ``categoryKey``).
    public var category: String? {
        didSet { categoryKey = category.map(UtensilName.uniquenessKey(for:)) }
    }
    /// The category NFC and case-folded: what `--category` matches.
    public private(set) var categoryKey: String?
    /// The user name owning the dropped file, or its numeric uid; nil for utensils from before
    /// this was recorded.
    public var addedBy: String?
    /// The `host_name` of the host that ingested its photo (or last replaced it); nil for
    /// utensils from before this was recorded.
    public var host: String?
    /// When its name, category or photo last changed; nil if never.
    public var updatedAt: Date?
    /// When it was moved to the trash; nil while it is in the catalog.
    public var trashedAt: Date?
    /// What `--sort name` orders by (see ``UtensilName/sortKey(for:)``).
    public private(set) var sortKey: String
    /// The 64 bits of its photo's look-alike fingerprint (`UtensilLookalike`'s
    /// `Fingerprint.bits`, as a signed bit pattern); nil for a photo not fingerprinted yet.
    public var fingerprint: Int64?
    /// The earlier utensil its photo looked like a copy of when it was ingested
    /// (`near_duplicates = "warn"`), its name then, and the fingerprints' distance; nil when
    /// none, or once the two are marked "not a copy" (see ``nearDuplicate``).
    public var nearDuplicateOf: UUID?
    public var nearDuplicateName: String?
    public var nearDuplicateDistance: Int?

    public init(
        id: UUID, name: String, nameKey: String, searchKey: String, fileExtension: String,
        createdAt: Date, width: Int, height: Int, bytes: Int, sha256: String,
        sourceKey: String?, nameClaim: String?, contentClaim: String?,
        category: String? = nil, addedBy: String? = nil, updatedAt: Date? = nil, trashedAt: Date? = nil,
        host: String? = nil, fingerprint: Int64? = nil, nearDuplicate: NearDuplicate? = nil
    ) {
        self.nearDuplicateOf = nearDuplicate?.id
        self.nearDuplicateName = nearDuplicate?.name
        self.nearDuplicateDistance = nearDuplicate?.distance
        self.host = host
        self.fingerprint = fingerprint
        self.id = id
        self.name = name
        self.nameKey = nameKey
        self.searchKey = searchKey
        self.fileExtension = fileExtension
        self.createdAt = createdAt
        self.width = width
        self.height = height
        self.bytes = bytes
        self.sha256 = sha256
        self.sourceKey = sourceKey
        self.nameClaim = nameClaim
        self.contentClaim = contentClaim
        self.category = category
        self.categoryKey = category.map(UtensilName.uniquenessKey(for:))
        self.addedBy = addedBy
        self.updatedAt = updatedAt
        self.trashedAt = trashedAt
        self.sortKey = UtensilName.sortKey(for: name)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, nameKey, searchKey, fileExtension = "extension", createdAt, width, height
        case bytes, sha256, sourceKey, nameClaim, contentClaim
        case category, categoryKey, addedBy, updatedAt, trashedAt, sortKey, host, fingerprint
        case nearDuplicateOf, nearDuplicateName, nearDuplicateDistance
    }
}

/// The earlier utensil a photo looked like a copy of.
public struct NearDuplicate: Sendable, Equatable {
    public var id: UUID
    /// Its name when the look-alike was found.
    public var name: String
    /// How many of the 64 fingerprint bits differ.
    public var distance: Int

    public init(id: UUID, name: String, distance: Int) {
        self.id = id
        self.name = name
        self.distance = distance
    }
}

extension UtensilRecord {
    /// ``nearDuplicateOf``, ``nearDuplicateName`` and ``nearDuplicateDistance`` together.
    public var nearDuplicate: NearDuplicate? {
        get {
            guard let nearDuplicateOf, let nearDuplicateName, let nearDuplicateDistance else { return nil }
            return NearDuplicate(id: nearDuplicateOf, name: nearDuplicateName, distance: nearDuplicateDistance)
        }
        set {
            nearDuplicateOf = newValue?.id
            nearDuplicateName = newValue?.name
            nearDuplicateDistance = newValue?.distance
        }
    }

    /// The file-identity part of a source key (what decoder crashes are counted by).
    public static func fileIdentity(ofSourceKey key: String) -> Substring {
        key.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)[0]
    }
}
