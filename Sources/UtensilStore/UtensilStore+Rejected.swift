import Foundation
import Glibc
import UtensilCore
import UtensilStorage

/// The `rejected/` folder as `utensilctl rejected` and `retry` see it.
///
/// Members of the group can write into this folder, so nothing in it is trusted: names are
/// handled as bytes (shown and taken in `FileNameEscaping`'s form), sidecars are read only as
/// small regular files, a name is never a path, and every name is resolved beneath the held
/// folders `rejected/` and the inbox, never through a link.
extension UtensilStore {
    /// A file in `rejected/` and why it is there.
    public struct RejectedFile: Sendable, Equatable {
        /// Its name in `FileNameEscaping`'s form (what ``retry(_:)`` takes).
        public var file: String
        public var reason: String
        public var message: String
        public var rejectedAt: Date
        public var bytes: Int
    }

    /// Every rejected file with its sidecar's reason, oldest first.
    public func rejectedFiles() async -> [RejectedFile] {
        let rejected: HeldFolder
        let names: [[UInt8]]
        do throws(SystemError) {
            rejected = try HeldFolder.open(settings.rejected)
            names = try rejected.list()
        } catch {
            if !error.isNotFound { logger.error("Cannot list the rejected files (\(error)); none are shown or retried") }
            return []
        }
        var items: [RejectedFile] = []
        for name in names where !name.ends(with: Self.sidecarSuffix) && name.first != UInt8(ascii: ".") {
            guard let status = try? rejected.status(of: name) else { continue }
            let sidecar = SidecarFile.read(Rejector.sidecarName(for: name), in: rejected)
            let modified = Date(timeIntervalSince1970: Double(status.modificationNanoseconds) / 1e9)
            items.append(RejectedFile(
                file: FileNameEscaping.escaped(name), reason: sidecar?.reason.rawValue ?? "unknown",
                message: sidecar?.message ?? "The sidecar of this file is missing or unreadable.",
                rejectedAt: sidecar.flatMap { Timestamp.date(from: $0.rejectedAt) } ?? modified,
                bytes: sidecar?.bytes ?? status.size))
        }
        return items.sorted { ($0.rejectedAt, $0.file) < ($1.rejectedAt, $1.file) }
    }

    /// Moves a rejected file (named in `FileNameEscaping`'s form) back into the inbox folder it
    /// was dropped in (so that it keeps its category; the folder is made again if it is gone),
    /// under its original name when free (else numbered as ``Rejector`` numbers clashes), and
    /// removes its sidecar; returns its path relative to the inbox, in the same form.
    public func retry(_ escapedName: String) async throws(StoreError) -> String {
        let name = FileNameEscaping.unescaped(escapedName)
        guard Self.isPlainName(name) else {
            throw .invalidRequest("\(escapedName.debugDescription) is not a file name: a name holds no \"/\" and no NUL byte and is not \".\" or \"..\"; `utensilctl rejected` lists the names.")
        }
        guard !name.ends(with: Self.sidecarSuffix) else {
            throw .invalidRequest("\(escapedName) is a sidecar; retry the rejected file it describes instead.")
        }
        let rejected: HeldFolder
        let inbox: HeldFolder
        do throws(SystemError) {
            rejected = try HeldFolder.open(settings.rejected)
            inbox = try HeldFolder.open(settings.inbox)
        } catch {
            throw .fileSystem("Cannot move \(escapedName) back into \(settings.inbox): \(error).")
        }
        do throws(SystemError) {
            _ = try rejected.status(of: name)
        } catch where error.isNotFound {
            throw .notFound("There is no rejected file named \(escapedName) in \(settings.rejected); `utensilctl rejected` lists them.")
        } catch {
            throw .fileSystem("Cannot look at \(escapedName) in \(settings.rejected): \(error); nothing was moved.")
        }
        let sidecarName = Rejector.sidecarName(for: name)
        // The sidecar keeps the name as dropped (before a ` (2)` for a clash); only a UTF-8
        // name survives the trip through its JSON unchanged.
        let sidecar = String(validating: name, as: UTF8.self) == nil ? nil : SidecarFile.read(sidecarName, in: rejected)
        let original = sidecar.map { Array($0.file.utf8) }
        let wanted = original.flatMap { Self.isPlainName($0) ? $0 : nil } ?? name
        let (target, subfolder) = destination(for: sidecar?.inboxPath, in: inbox)
        // The sidecar steps aside first, under a temporary name: a drop that the daemon rejects
        // again at once then finds its old name free (no ` (2)`), and its new sidecar is not
        // removed in its place. It comes back if the file cannot be moved.
        let setAside = settings.ownFiles.temporaryName()
        let sidecarSetAside = (try? rejected.renameNoReplace(sidecarName, to: rejected, as: setAside)) != nil
        func restoreSidecar() {
            guard sidecarSetAside else { return }
            do {
                try rejected.renameNoReplace(setAside, to: rejected, as: sidecarName)
            } catch {
                logger.warning("Cannot put the sidecar of \(escapedName) back (\(error)); restarting utensild removes it")
            }
        }
        for attempt in 1...1000 {
            let candidate = Rejector.candidateName(for: wanted, attempt: attempt, shortened: false)
            do {
                try rejected.renameNoReplace(name, to: target, as: candidate)
            } catch where error.code == EEXIST {
                continue
            } catch {
                restoreSidecar()
                throw .fileSystem("Cannot move \(escapedName) back into \(settings.inbox): \(String(cString: strerror(error.code))).")
            }
            if sidecarSetAside {
                do {
                    try rejected.unlink(setAside)
                } catch {
                    logger.warning("Cannot remove the sidecar of \(escapedName) (\(error)); restarting utensild removes it")
                }
            }
            return FileNameEscaping.escaped(subfolder + candidate)
        }
        restoreSidecar()
        throw .fileSystem("Cannot find a free name for \(escapedName) in \(settings.inbox).")
    }

    /// Retries every rejected file it can; those it cannot are returned beside, each with why.
    public func retryAll() async -> (moved: [String], failures: [(file: String, message: String)]) {
        var moved: [String] = []
        var failures: [(file: String, message: String)] = []
        for file in await rejectedFiles().map(\.file) {
            do {
                moved.append(try await retry(file))
            } catch {
                failures.append((file, error.description))
            }
        }
        return (moved, failures)
    }

    /// The inbox folder a drop at `inboxPath` was in (`Knives/Chef/` for
    /// `Knives/Chef/Santoku.jpg`), held open beneath the inbox (never through a link) and made
    /// where it is missing, with its path relative to the inbox ending in `/`; the inbox
    /// itself and `[]` for a drop that was directly in it, or when the folder cannot be had
    /// (a part that is not a plain name, or a link, or a file).
    private func destination(for inboxPath: String?, in inbox: HeldFolder) -> (HeldFolder, [UInt8]) {
        guard let inboxPath else { return (inbox, []) }
        let parts = Array(inboxPath.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .dropLast().map(Array.init)
        guard !parts.isEmpty, parts.allSatisfy(Self.isPlainName) else { return (inbox, []) }
        do throws(SystemError) {
            var held = inbox
            for part in parts {
                do {
                    held = try held.folder(part)
                } catch where error.isNotFound {
                    try held.makeFolder(part, mode: 0o775)
                    held = try held.folder(part)
                }
            }
            return (held, parts.joined(separator: [UInt8(ascii: "/")]) + [UInt8(ascii: "/")])
        } catch {
            return (inbox, [])
        }
    }

    static let sidecarSuffix = Array(RejectionSidecar.suffix.utf8)

    /// One file name: not empty, no `/`, no NUL, not `.` or `..`.
    static func isPlainName(_ name: [UInt8]) -> Bool {
        !name.isEmpty && !name.contains(UInt8(ascii: "/")) && !name.contains(0)
            && name != Array(".".utf8) && name != Array("..".utf8)
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
