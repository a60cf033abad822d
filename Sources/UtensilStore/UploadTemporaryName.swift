/// The hidden name a web upload is written under until it is whole, `.upload-<UUID>.part`:
/// invisible to the watcher. The ingest target's `InboxUploads` writes it; the store removes
/// the ones a kill cut off (``UtensilStore/removeUploadLeftovers(now:)``).
package enum UploadTemporaryName {
    package static let prefix = ".upload-"
    package static let suffix = ".part"

    /// Whether `name` is an upload's temporary file.
    package static func isTemporary(_ name: [UInt8]) -> Bool {
        name.starts(with: Array(prefix.utf8)) && name.count > prefix.utf8.count + suffix.utf8.count
            && name.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
    }
}
