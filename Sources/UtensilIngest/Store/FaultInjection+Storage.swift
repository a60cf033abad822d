import UtensilStorage

extension FaultInjection {
    /// The steps of an ingest among the local storage's single file operations: the original
    /// staged, then the thumbnail and the preview; after the commit, the thumbnail (the preview
    /// before it) and then the original put into place. An operation without an original (a
    /// `rethumb`) passes none of them.
    func storageStep(_ step: LocalFolderStorage.Step) {
        switch step {
        case .staged(.original, _): reached(.originalWritten)
        case .staged(.preview, let operation) where operation.renditions.contains(.original): reached(.thumbnailWritten)
        case .published(.thumbnail, let operation) where operation.renditions.contains(.original): reached(.thumbnailMoved)
        case .published(.original, _): reached(.originalMoved)
        default: break
        }
    }
}
