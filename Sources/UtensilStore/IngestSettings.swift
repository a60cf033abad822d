import UtensilCodec
import UtensilCore

/// What the engine needs to know, mapped from the daemon's configuration.
public struct IngestSettings: Sendable {
    public var inbox: RawPath
    public var rejected: RawPath
    public var stateDirectory: RawPath
    public var thumbnail: ThumbnailRequest
    /// Long side of each utensil's preview (`previews/`), made with its thumbnail.
    public var previewLongSide: Int
    /// Edge of each utensil's grid square (`squares/`), made from the preview's decode; 0
    /// makes none (for benchmarks measuring its share).
    public var gridSquareSide = ThumbnailRequest.defaultSquareSide
    public var maxFileBytes: Int
    public var rejectDuplicateNames: Bool
    /// `duplicate_names = "replace"`: a drop named like an existing utensil replaces its photo.
    public var replaceDuplicateNames: Bool
    public var rejectDuplicateContent: Bool
    /// `near_duplicates`: what a drop whose photo looks like a copy of a utensil's gets.
    public var nearDuplicates: NearDuplicates = .warn
    /// Days a deleted utensil stays in the trash; 0 deletes at once.
    public var trashDays: Double
    /// `host_name`: names this host's own folder in `staging/` (``staging``).
    public var hostName: String
    /// Whether other hosts share the state folder (a PostgreSQL catalog): this host's own
    /// files in it then carry its name (``ownFiles``).
    public var sharesStateFolder = false

    public init(
        inbox: String, rejected: String, stateDirectory: String,
        thumbnail: ThumbnailRequest = ThumbnailRequest(), maxFileBytes: Int = 104_857_600,
        rejectDuplicateNames: Bool = true, rejectDuplicateContent: Bool = true, trashDays: Double = 30,
        replaceDuplicateNames: Bool = false, previewLongSide: Int = ThumbnailRequest.defaultPreviewLongSide,
        hostName: String = "localhost"
    ) {
        self.hostName = hostName
        self.previewLongSide = previewLongSide
        self.inbox = RawPath(inbox)
        self.rejected = RawPath(rejected)
        self.stateDirectory = RawPath(stateDirectory)
        self.thumbnail = thumbnail
        self.maxFileBytes = maxFileBytes
        self.rejectDuplicateNames = rejectDuplicateNames
        self.replaceDuplicateNames = replaceDuplicateNames
        self.rejectDuplicateContent = rejectDuplicateContent
        self.trashDays = trashDays
    }

    /// What one decode of a photo makes: the thumbnail, the preview and the grid square.
    public var renditions: ThumbnailRequest {
        var request = thumbnail
        request.previewLongSide = max(1, previewLongSide)  // Always a preview: every utensil has one.
        request.miniatureSide = PhotoFingerprint.miniatureSide  // And a fingerprint.
        request.squareSide = gridSquareSide  // And the gallery's grid square.
        return request
    }

    /// Whether names are unique (claimed in SQLite): when a duplicate is rejected or replaces.
    public var claimsNames: Bool { rejectDuplicateNames || replaceDuplicateNames }

    /// `state_dir/utensils.sqlite`
    public var catalogPath: String { stateDirectory.appending("utensils.sqlite").description }
    /// Where each rendition of a utensil lives under `state_dir`.
    public var layout: StateLayout { StateLayout(stateDirectory: stateDirectory) }
    /// `state_dir/originals`
    public var originals: RawPath { layout.folder(of: .original) }
    /// `state_dir/thumbnails`
    public var thumbnails: RawPath { layout.folder(of: .thumbnail) }
    /// `state_dir/previews`
    public var previews: RawPath { layout.folder(of: .preview) }
    /// `state_dir/staging`: one folder per host (``staging``), and the files of an older
    /// version's operations, which staged directly in it.
    public var stagingRoot: RawPath { layout.stagingRoot }
    /// `state_dir/staging/<host_name>`: the files of this host's store operations in flight
    /// (see `UtensilStore`); only this host recovers them.
    public var staging: RawPath { layout.staging(host: hostName) }
    /// The drops being decoded, one slot a decoding thread, mapped into memory
    /// (``DecoderCrashGuard``): what it says when the process dies is read at the next start.
    public var decodingSlots: RawPath { stateDirectory.appending(ownFiles.decodingSlots) }
    /// The names of this host's own files in the state folder.
    public var ownFiles: HostFileNames { HostFileNames(sharedAs: sharesStateFolder ? hostName : nil) }

    public func originalPath(id: UUIDString, fileExtension: String) -> RawPath {
        renditionPath(.original, id: id, fileExtension: fileExtension)
    }

    public func thumbnailPath(id: UUIDString) -> RawPath {
        renditionPath(.thumbnail, id: id, fileExtension: "jpeg")
    }

    public func previewPath(id: UUIDString) -> RawPath {
        renditionPath(.preview, id: id, fileExtension: "jpeg")
    }

    private func renditionPath(_ rendition: Rendition, id: UUIDString, fileExtension: String) -> RawPath {
        layout.folder(of: rendition).appending(StateLayout.fileName(of: rendition, idText: id, fileExtension: fileExtension))
    }
}

/// A UUID in Swift's `uuidString` form, as used in file names.
public typealias UUIDString = String

extension Thumbnail {
    /// The preview that ``IngestSettings/renditions`` always asks for.
    package var renderedPreview: Preview {
        guard let preview else { preconditionFailure("the store's renditions request always asks for a preview") }
        return preview
    }
}

extension IngestSettings {
    /// What a drop whose photo looks like a copy of a utensil's gets (`near_duplicates`).
    public enum NearDuplicates: Sendable, Equatable {
        /// Ingested, recording the utensil it resembles.
        case warn
        /// Rejected as `near-duplicate`.
        case reject
        /// Neither.
        case off
    }
}
