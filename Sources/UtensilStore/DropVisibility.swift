import UtensilCore
/// Which inbox entries the daemon sees, following the contract: temporary files of copy tools,
/// partial downloads and system litter are invisible; every other visible file is a drop.
public enum DropVisibility {
    /// The file-name extensions of photos utensild ingests (compared in lower case).
    public static let photoExtensions: Set<String> = Set(PhotoFormats.byExtension.keys)

    private static let partialSuffixes = [".part", ".partial", ".crdownload", ".filepart", ".tmp", "~"]
    private static let litterNames: Set<String> = ["thumbs.db", "desktop.ini"]
    private static let ignoredFolders: Set<String> = ["@eadir", "__macosx", ".trashes"]

    /// Whether an entry with this name is invisible to the daemon (never ingested, never rejected).
    public static func isInvisible(name: [UInt8], isDirectory: Bool) -> Bool {
        if name.first == UInt8(ascii: ".") { return true }
        let lowered = name.lossyString.lowercased()
        if isDirectory { return ignoredFolders.contains(lowered) }
        if lowered.hasPrefix("~$") { return true }
        if litterNames.contains(lowered) { return true }
        return partialSuffixes.contains { lowered.hasSuffix($0) }
    }

    /// Whether the inbox ignores an entry of this name whatever it is: as a folder (`@eaDir`),
    /// or as a file or link (`Evil~`, `x.part`). A category must be neither.
    public static func isIgnored(name: [UInt8]) -> Bool {
        isInvisible(name: name, isDirectory: true) || isInvisible(name: name, isDirectory: false)
    }

    /// The lower-case extension of a file name (`Spoon.JPG` → `jpg`), or nil without one.
    public static func fileExtension(of name: [UInt8]) -> String? {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return nil }
        return name[(dot + 1)...].lossyString.lowercased()
    }

    /// Whether the name ends in a photo extension, such as `.jpg` or `.heic` (any letter case).
    public static func hasPhotoExtension(_ name: [UInt8]) -> Bool {
        fileExtension(of: name).map(photoExtensions.contains) ?? false
    }
}
