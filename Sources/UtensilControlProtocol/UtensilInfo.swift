import Foundation

/// One utensil as the control socket shows it.
public struct UtensilInfo: Codable, Sendable, Equatable {
    /// The utensil id, Swift's `UUID.uuidString` form.
    public var id: String
    public var name: String
    /// The original's extension in lower case: `jpg`, `jpeg`, `png`, `heic`, `heif`, `avif` or
    /// `webp` (JSON `"extension"`).
    public var fileExtension: String
    public var createdAt: Date
    public var width: Int
    public var height: Int
    /// Size of the original in bytes.
    public var bytes: Int
    /// Absolute path of the original under `state_dir/originals/`.
    public var original: String
    /// Absolute path of the thumbnail under `state_dir/thumbnails/`.
    public var thumbnail: String
    /// Absolute path of the display-size preview under `state_dir/previews/` (JSON
    /// `"preview"`); nil from a daemon older than previews.
    public var previewFile: String?
    /// The inbox folder it was dropped into, or nil (JSON `null`, always written).
    @WrittenAsNull public var category: String?
    /// The user name owning the dropped file, or its numeric uid; nil (JSON `null`, always
    /// written) for utensils added before utensild recorded it.
    @WrittenAsNull public var addedBy: String?
    /// The `host_name` of the host that ingested it (or last replaced its photo); nil (JSON
    /// `null`, always written) for utensils added before utensild recorded it.
    @WrittenAsNull public var host: String?
    /// The earlier utensil its photo looked like a copy of when it was ingested
    /// (`near_duplicates = "warn"`); nil (JSON `null`, always written) when none.
    @WrittenAsNull public var nearDuplicateOf: NearDuplicateInfo?
    /// When its name, category or photo last changed; nil (JSON `null`, always written) if never.
    @WrittenAsNull public var updatedAt: Date?
    /// Whether it is a favorite of the user who asked (JSON `favorite`); nil (left out) where
    /// there is no one asking, as in `events`.
    public var favorite: Bool?
    /// In the trash only: when it was moved there.
    public var trashedAt: Date?
    /// In the trash only: when the daemon deletes it for good.
    public var purgeAt: Date?
    /// `show --preview` only: the thumbnail JPEG (base64 in JSON).
    public var thumbnailJPEG: Data?
    /// `show --preview` only: `previewWidth` × `previewHeight` × 3 bytes of RGB, row by row,
    /// top to bottom (base64 in JSON), for terminals; see `RGBPreview`.
    public var previewRGB: Data?
    public var previewWidth: Int?
    public var previewHeight: Int?

    public init(
        id: String, name: String, fileExtension: String, createdAt: Date, width: Int, height: Int,
        bytes: Int, original: String, thumbnail: String, category: String? = nil, addedBy: String? = nil,
        updatedAt: Date? = nil, trashedAt: Date? = nil, purgeAt: Date? = nil, thumbnailJPEG: Data? = nil,
        preview: RGBPreview? = nil, previewFile: String? = nil, favorite: Bool? = nil, host: String? = nil,
        nearDuplicateOf: NearDuplicateInfo? = nil
    ) {
        self.nearDuplicateOf = nearDuplicateOf
        self.host = host
        self.previewFile = previewFile
        self.id = id
        self.name = name
        self.fileExtension = fileExtension
        self.createdAt = createdAt
        self.width = width
        self.height = height
        self.bytes = bytes
        self.original = original
        self.thumbnail = thumbnail
        self.category = category
        self.addedBy = addedBy
        self.updatedAt = updatedAt
        self.trashedAt = trashedAt
        self.purgeAt = purgeAt
        self.thumbnailJPEG = thumbnailJPEG
        self.preview = preview
        self.favorite = favorite
    }

    enum CodingKeys: String, CodingKey {
        case id, name, fileExtension = "extension", createdAt, width, height, bytes, original, thumbnail
        case previewFile = "preview"
        case category, addedBy, host, nearDuplicateOf, updatedAt, trashedAt, purgeAt, favorite
        case thumbnailJPEG, previewRGB, previewWidth, previewHeight
    }

    /// The raw RGB preview, when all three preview fields are present and consistent.
    public var preview: RGBPreview? {
        get {
            guard let previewRGB, let previewWidth, let previewHeight else { return nil }
            return RGBPreview(width: previewWidth, height: previewHeight, rgb: previewRGB)
        }
        set {
            previewRGB = newValue?.rgb
            previewWidth = newValue?.width
            previewHeight = newValue?.height
        }
    }
}

/// The utensil another one looks like a copy of (``UtensilInfo/nearDuplicateOf``).
public struct NearDuplicateInfo: Codable, Sendable, Equatable {
    /// Its id, `UUID.uuidString` form.
    public var id: String
    /// Its name when the look-alike was found.
    public var name: String
    /// How many of the 64 bits of the two photos' fingerprints differ (at most 12).
    public var distance: Int

    public init(id: String, name: String, distance: Int) {
        self.id = id
        self.name = name
        self.distance = distance
    }
}
