import Foundation
import Glibc
import UtensilControlProtocol
import UtensilCore
import UtensilIngest

/// The `rejected/` folder as `utensilctl rejected` and `retry` see it.
struct RejectedFolder: Sendable {
    let folder: String
    let inbox: String

    /// Every rejected file with its sidecar's reason, oldest first.
    func list() -> [RejectedInfo] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let decoder = JSONDecoder()
        var items: [RejectedInfo] = []
        for name in names where !name.hasSuffix(RejectionSidecar.suffix) && !name.hasPrefix(".") {
            let sidecarPath = folder + "/" + name + RejectionSidecar.suffix
            let sidecar = (try? Data(contentsOf: URL(fileURLWithPath: sidecarPath)))
                .flatMap { try? decoder.decode(RejectionSidecar.self, from: $0) }
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)
            let modified = attributes?[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
            items.append(RejectedInfo(
                file: name, reason: sidecar?.reason.rawValue ?? "unknown",
                message: sidecar?.message ?? "The sidecar of this file is missing or unreadable.",
                rejectedAt: sidecar.flatMap { ControlTimestamp.date(from: $0.rejectedAt) } ?? modified,
                bytes: sidecar?.bytes ?? (attributes?[.size] as? Int ?? 0)))
        }
        return items.sorted { ($0.rejectedAt, $0.file) < ($1.rejectedAt, $1.file) }
    }

    enum RetryError: Error {
        case notFound(String)
        case invalid(String)
        case failed(String)
    }

    /// Moves a rejected file back into the inbox folder it was dropped in (so that it keeps its
    /// category; the folder is made again if it is gone), under its original name when free,
    /// and removes its sidecar; returns its path relative to the inbox.
    func retry(_ name: String) throws(RetryError) -> String {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", !name.hasSuffix(RejectionSidecar.suffix) else {
            throw .invalid("\(name) is not the name of a file in \(folder)")
        }
        let source = folder + "/" + name
        var status = stat()
        guard lstat(source, &status) == 0 else { throw .notFound("There is no rejected file named \(name) in \(folder).") }
        let sidecarPath = source + RejectionSidecar.suffix
        let sidecar = (try? Data(contentsOf: URL(fileURLWithPath: sidecarPath)))
            .flatMap { try? JSONDecoder().decode(RejectionSidecar.self, from: $0) }
        let wanted = sidecar.map(\.file).flatMap { $0.contains("/") || $0.isEmpty ? nil : $0 } ?? name
        let folder = sidecar.map { madeFolder(for: $0.inboxPath) } ?? ""
        for attempt in 1...1000 {
            let candidate = folder + (attempt == 1 ? wanted : Self.numbered(wanted, attempt))
            let target = inbox + "/" + candidate
            if renameNoReplace(source, target) {
                unlink(sidecarPath)
                return candidate
            }
            if errno != EEXIST { throw .failed("Cannot move \(name) back into \(inbox): \(String(cString: strerror(errno))).") }
        }
        throw .failed("Cannot find a free name for \(name) in \(inbox).")
    }

    /// The folder of `inboxPath` (`Knives/Chef/` for `Knives/Chef/Santoku.jpg`), made below the
    /// inbox where it is missing; `""` (the inbox itself) for a drop that was directly in it, or
    /// when a part of the path is not a plain folder name or is something other than a folder.
    private func madeFolder(for inboxPath: String) -> String {
        let parts = inboxPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return "" }
        var folder = inbox
        for part in parts {
            folder += "/" + part
            var status = stat()
            if lstat(folder, &status) == 0 {
                if status.st_mode & S_IFMT != S_IFDIR { return "" }  // Never through a link.
            } else if mkdir(folder, 0o775) != 0 && errno != EEXIST {
                return ""
            }
        }
        return parts.joined(separator: "/") + "/"
    }

    static func numbered(_ name: String, _ attempt: Int) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name) (\(attempt))" }
        return "\(name[..<dot]) (\(attempt))\(name[dot...])"
    }

    private func renameNoReplace(_ from: String, _ to: String) -> Bool {
        (try? FileMoves.renameNoReplace(from, to)) != nil
    }
}
