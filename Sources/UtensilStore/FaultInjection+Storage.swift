import Glibc
import UtensilStorage

extension FaultInjection {
    /// The store's steps among the local storage's single file operations: an ingest's
    /// original staged, then its thumbnail and preview; after the commit, its thumbnail (the
    /// preview before it) and then its original put into place; after a delete's commit, each
    /// of its renditions removed. An operation without an original (a `rethumb`) passes none
    /// of them. An `fsync` of recovery's fails as ``syncFailsIn`` asks.
    func storageStep(_ step: LocalFolderStorage.Step) throws(SystemError) {
        switch step {
        case .staged(.original, _): reached(.originalWritten)
        case .staged(.preview, let operation) where operation.renditions.contains(.original): reached(.thumbnailWritten)
        case .published(.thumbnail, let operation) where operation.renditions.contains(.original): reached(.thumbnailMoved)
        case .published(.original, _): reached(.originalMoved)
        case .discarded(_, let operation) where operation.renditions.contains(.original): reached(.deleteFileRemoved)
        case .syncing(let folder): try syncMayFail(folder)
        default: break
        }
    }

    /// Fails the `fsync` of `folder` (EIO) when ``syncFailsIn`` names it.
    private func syncMayFail(_ folder: HeldFolder) throws(SystemError) {
        #if DEBUG
        if let name = syncFailsIn, folder.path.lastComponent == Array(name.utf8) {
            throw SystemError("fsync", folder.path, code: EIO)
        }
        #endif
    }
}
