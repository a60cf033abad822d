import Foundation
import Glibc
import UtensilControlProtocol
import UtensilCore
import UtensilIngest

/// The `rejected/` folder as `utensilctl rejected` and `retry` see it.
///
/// Members of the group can write into this folder, so nothing in it is trusted: names are
/// handled as bytes (shown and taken in `FileNameEscaping`'s form), sidecars are read only as
/// small regular files, and a name is never a path.
struct RejectedFolder: Sendable {
    let folder: RawPath
    let inbox: RawPath

    /// Every rejected file with its sidecar's reason, oldest first.
    func list() -> [RejectedInfo] {
        let names = (try? FileMoves.names(in: folder)) ?? []
        let suffix = Array(RejectionSidecar.suffix.utf8)
        var items: [RejectedInfo] = []
        for name in names where !name.ends(with: suffix) && name.first != UInt8(ascii: ".") {
            guard let status = try? FileMoves.status(folder.appending(name)) else { continue }
            let sidecar = SidecarFile.read(folder.appending(name + suffix))
            let modified = Date(timeIntervalSince1970: Double(status.modificationNanoseconds) / 1e9)
            items.append(RejectedInfo(
                file: FileNameEscaping.escaped(name), reason: sidecar?.reason.rawValue ?? "unknown",
                message: sidecar?.message ?? "The sidecar of this file is missing or unreadable.",
                rejectedAt: sidecar.flatMap { ControlTimestamp.date(from: $0.rejectedAt) } ?? modified,
                bytes: sidecar?.bytes ?? status.size))
        }
        return items.sorted { ($0.rejectedAt, $0.file) < ($1.rejectedAt, $1.file) }
    }

    enum RetryError: Error {
        case notFound(String)
        case invalid(String)
        case failed(String)

        var message: String {
            switch self {
            case .notFound(let message), .invalid(let message), .failed(let message): message
            }
        }
    }

    /// Moves a rejected file (named in `FileNameEscaping`'s form) back into the inbox folder it
    /// was dropped in (so that it keeps its category; the folder is made again if it is gone),
    /// under its original name when free, and removes its sidecar; returns its path relative
    /// to the inbox, in the same form.
    func retry(_ escapedName: String) throws(RetryError) -> String {
        let name = FileNameEscaping.unescaped(escapedName)
        let suffix = Array(RejectionSidecar.suffix.utf8)
        guard Self.isPlainName(name) else {
            throw .invalid("\(escapedName.debugDescription) is not a file name: a name holds no \"/\" and no NUL byte and is not \".\" or \"..\"; `utensilctl rejected` lists the names.")
        }
        guard !name.ends(with: suffix) else {
            throw .invalid("\(escapedName) is a sidecar; retry the rejected file it describes instead.")
        }
        let source = folder.appending(name)
        guard (try? FileMoves.status(source)) != nil else {
            throw .notFound("There is no rejected file named \(escapedName) in \(folder); `utensilctl rejected` lists them.")
        }
        let sidecarPath = folder.appending(name + suffix)
        // The sidecar keeps the name as dropped (before a ` (2)` for a clash); only a UTF-8
        // name survives the trip through its JSON unchanged.
        let sidecar = String(validating: name, as: UTF8.self) == nil ? nil : SidecarFile.read(sidecarPath)
        let original = sidecar.map { Array($0.file.utf8) }
        let wanted = original.flatMap { Self.isPlainName($0) ? $0 : nil } ?? name
        let (target, subfolder) = destination(for: sidecar?.inboxPath)
        // The sidecar steps aside first, under a temporary name: a drop that the daemon rejects
        // again at once then finds its old name free (no ` (2)`), and its new sidecar is not
        // removed in its place. It comes back if the file cannot be moved.
        let setAside = folder.appending(FileMoves.temporaryName())
        let sidecarSetAside = (try? FileMoves.renameNoReplace(sidecarPath, setAside)) != nil
        func restoreSidecar() {
            if sidecarSetAside { try? FileMoves.renameNoReplace(setAside, sidecarPath) }
        }
        for attempt in 1...1000 {
            let candidate = attempt == 1 ? wanted : Self.numbered(wanted, attempt)
            do {
                if let target {
                    try HeldFolder.open(folder).renameNoReplace(name, to: target, as: candidate)
                } else {
                    try FileMoves.renameNoReplace(source, inbox.appending(candidate))
                }
                if sidecarSetAside { try? FileMoves.remove(setAside) }
                return FileNameEscaping.escaped(subfolder + candidate)
            } catch where error.code == EEXIST {
                continue
            } catch {
                restoreSidecar()
                throw .failed("Cannot move \(escapedName) back into \(inbox): \(String(cString: strerror(error.code))).")
            }
        }
        restoreSidecar()
        throw .failed("Cannot find a free name for \(escapedName) in \(inbox).")
    }

    /// The inbox folder a drop at `inboxPath` was in (`Knives/Chef/` for
    /// `Knives/Chef/Santoku.jpg`), held open beneath the inbox (never through a link) and made
    /// where it is missing, with its path relative to the inbox ending in `/`; nil and `[]`
    /// (the inbox itself) for a drop that was directly in it, or when the folder cannot be
    /// had (a part that is not a plain name, or a link, or a file).
    private func destination(for inboxPath: String?) -> (HeldFolder?, [UInt8]) {
        guard let inboxPath else { return (nil, []) }
        let parts = Array(inboxPath.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .dropLast().map(Array.init)
        guard !parts.isEmpty, parts.allSatisfy(Self.isPlainName) else { return (nil, []) }
        do {
            var held = try HeldFolder.open(inbox)
            for part in parts {
                do {
                    held = try held.folder(part)
                } catch where error.isNotFound {
                    try? held.makeFolder(part, mode: 0o775)
                    held = try held.folder(part)
                }
            }
            return (held, parts.joined(separator: [UInt8(ascii: "/")]) + [UInt8(ascii: "/")])
        } catch {
            return (nil, [])
        }
    }

    /// One file name: not empty, no `/`, no NUL, not `.` or `..`.
    static func isPlainName(_ name: [UInt8]) -> Bool {
        !name.isEmpty && !name.contains(UInt8(ascii: "/")) && !name.contains(0)
            && name != Array(".".utf8) && name != Array("..".utf8)
    }

    /// `Spoon.jpg` → `Spoon (2).jpg`.
    static func numbered(_ name: [UInt8], _ attempt: Int) -> [UInt8] {
        let suffix = Array(" (\(attempt))".utf8)
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return name + suffix }
        return Array(name[..<dot]) + suffix + Array(name[dot...])
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
