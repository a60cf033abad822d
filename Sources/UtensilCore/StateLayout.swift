import Foundation

/// The files a utensil has: its photo as it was dropped, and the images made from it.
public enum Rendition: String, CaseIterable, Sendable, Hashable {
    case original
    case thumbnail
    case preview
    /// The grid square: the thumbnail's crop, larger, for high-density screens. Unlike the
    /// others it may be missing (a utensil from before it was made): `rethumb --missing`
    /// makes it, and until then the gallery shows the thumbnail.
    case square

    /// Whether every utensil must have this rendition (`check` reports a row lacking one); the
    /// grid square is optional.
    public var isRequired: Bool { self != .square }

    /// The extension of this rendition's file: the original keeps its photo's
    /// (`originalExtension`); the thumbnail, the preview and the grid square are always JPEG.
    public func fileExtension(original originalExtension: String) -> String {
        self == .original ? originalExtension : "jpeg"
    }
}

/// Where each rendition of a utensil lives under `state_dir`, spelled once: `originals/`,
/// `thumbnails/`, `previews/` and `squares/`, each holding `<UUID>.<ext>`, and `staging/`, one folder per
/// host for the store's operations in flight. The settings, the store, backup and the
/// configuration's path rules all ask it; nothing else spells these names.
public struct StateLayout: Sendable, Hashable {
    /// `state_dir`.
    public let stateDirectory: RawPath

    public init(stateDirectory: RawPath) {
        self.stateDirectory = stateDirectory
    }

    /// `staging`: the files of the store's operations in flight.
    public static let stagingFolderName = "staging"

    /// The folder of `state_dir` holding every utensil's `rendition`.
    public static func folderName(of rendition: Rendition) -> String {
        switch rendition {
        case .original: "originals"
        case .thumbnail: "thumbnails"
        case .preview: "previews"
        case .square: "squares"
        }
    }

    /// The folders of `state_dir` only the daemon writes: the renditions', then `staging`.
    public static let ownedFolderNames: [String] = Rendition.allCases.map(folderName(of:)) + [stagingFolderName]

    /// `<UUID>.<ext>`: the name of utensil `id`'s `rendition` in its folder (`fileExtension`
    /// is the original's; see ``Rendition/fileExtension(original:)``).
    public static func fileName(of rendition: Rendition, id: UUID, fileExtension: String) -> String {
        fileName(of: rendition, idText: id.uuidString, fileExtension: fileExtension)
    }

    /// ``fileName(of:id:fileExtension:)`` for an id already in its `uuidString` form.
    public static func fileName(of rendition: Rendition, idText: String, fileExtension: String) -> String {
        "\(idText).\(rendition.fileExtension(original: fileExtension))"
    }

    /// `state_dir/originals`, `state_dir/thumbnails`, `state_dir/previews` or `state_dir/squares`.
    public func folder(of rendition: Rendition) -> RawPath {
        stateDirectory.appending(Self.folderName(of: rendition))
    }

    /// Where utensil `id`'s `rendition` is.
    public func path(of rendition: Rendition, id: UUID, fileExtension: String) -> RawPath {
        folder(of: rendition).appending(Self.fileName(of: rendition, id: id, fileExtension: fileExtension))
    }

    /// `state_dir/staging`: one folder per host (``staging(host:)``).
    public var stagingRoot: RawPath { stateDirectory.appending(Self.stagingFolderName) }

    /// `state_dir/staging/<host>`: the files of that host's operations in flight.
    public func staging(host: String) -> RawPath { stagingRoot.appending(host) }
}
