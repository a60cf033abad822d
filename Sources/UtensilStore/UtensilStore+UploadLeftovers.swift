import Foundation
import Glibc
import Logging
import UtensilCore
import UtensilStorage

/// Files of web uploads cut off by a kill (``UploadTemporaryName``: `.upload-<UUID>.part`):
/// start-up removes them, `check` reports any that stay. Only utensild's own regular files
/// count, in the inbox and the folders directly in it (where uploads are written), each
/// folder opened beneath the inbox, never through a link.
extension UtensilStore {
    /// The leftovers now, each with its status.
    func uploadLeftovers() throws(SystemError) -> [(entry: StateScan.Entry, status: FileStatus)] {
        let inbox = try HeldFolder.open(settings.inbox)
        var found: [(entry: StateScan.Entry, status: FileStatus)] = []
        var folders = [inbox]
        for name in try inbox.list() {
            guard let status = try? inbox.status(of: name), status.kind == .directory,
                  let folder = try? inbox.folder(name)
            else { continue }
            folders.append(folder)
        }
        for folder in folders {
            guard let names = try? folder.list() else { continue }  // Gone meanwhile.
            for name in names where UploadTemporaryName.isTemporary(name) {
                guard let status = try? folder.status(of: name), status.kind == .regular, status.owner == geteuid() else { continue }
                found.append((StateScan.Entry(folder: folder, name: name), status))
            }
        }
        return found
    }

    /// Removes every leftover (no upload of this host runs before start-up ends; one of another
    /// host sharing the inbox may, so a young one is left then); returns how many.
    func removeUploadLeftovers(now: Date) -> Int {
        let leftovers: [(entry: StateScan.Entry, status: FileStatus)]
        do throws(SystemError) {
            leftovers = try uploadLeftovers()
        } catch {
            logger.warning("Cannot look for cut-off uploads in \(settings.inbox) (\(error)); leaving them")
            return 0
        }
        var removed = 0
        for (entry, status) in leftovers where !mayBeAnotherHosts(status, now: now) {
            do {
                try entry.folder.unlink(entry.name)
                removed += 1
            } catch {
                logger.warning("Cannot remove the cut-off upload \(FileNameEscaping.escaped(entry.path.bytes)) (\(error)); leaving it")
            }
        }
        return removed
    }
}
