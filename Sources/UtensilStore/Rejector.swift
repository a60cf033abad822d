import Foundation
import UtensilCore
import UtensilStorage

/// Moves a failed drop to `rejected/` beside a sidecar that tells a person why.
///
/// The sidecar is made durable first, then the drop is renamed next to it without ever
/// replacing a file (a clash gets ` (2)`, ` (3)` … before the extension). A crash between the
/// two leaves the drop in the inbox and a sidecar without its file, which start-up
/// reconciliation removes; so a drop always ends up rejected exactly once. Everything happens
/// relative to the held folders: the drop's own folder and `rejected/`.
package struct Rejector: Sendable {
    package let folder: FolderAnchor
    package let faults: FaultInjection
    /// How the sidecars' temporaries begin (``HostFileNames/temporaryPrefix``): a host's own
    /// in a `rejected/` other hosts share.
    package let temporaryPrefix: String

    package init(folder: FolderAnchor, faults: FaultInjection, temporaryPrefix: String = FileOps.temporaryPrefix) {
        self.folder = folder
        self.faults = faults
        self.temporaryPrefix = temporaryPrefix
    }

    /// The longest file name Linux file systems take, in bytes.
    static let nameMax = 255

    package enum Result {
        /// The drop is in `rejected/` under this name.
        case rejected(name: [UInt8])
        /// The drop is no longer what `expected` says (rewritten, replaced): it was left alone.
        case changed
    }

    /// Rejects the drop at `location` if it is still `expected`.
    package func reject(
        _ drop: Drop, at location: DropLocation, expected: DropExpectation, _ rejection: Rejection, bytes: Int
    ) throws(SystemError) -> Result {
        let rejected = try heldFolder()
        let original = location.name
        for attempt in 1...10_000 {
            let name = Self.candidateName(for: original, attempt: attempt)
            let sidecar = Self.sidecarName(for: name)
            if (try? rejected.status(of: name)) != nil || (try? rejected.status(of: sidecar)) != nil { continue }
            let document = RejectionSidecar(
                file: original.lossyString, reason: rejection.reason, message: rejection.message,
                rejectedAt: Date(), bytes: bytes, rejectedAs: name.lossyString,
                inboxPath: drop.inboxPath.lossyString)
            let json = Array(document.encoded()) + Array("\n".utf8)
            do {
                try FileOps.writeThroughTemporary(
                    json, in: rejected, as: sidecar, mode: 0o644, durable: true, temporaryPrefix: temporaryPrefix)
            } catch where error.code == EEXIST {
                continue
            }
            faults.reached(.sidecarWritten)
            do {
                guard expected.isMet(by: try location.status()) else {
                    try? rejected.unlink(sidecar)
                    return .changed
                }
                try location.folder.renameNoReplace(original, to: rejected, as: name)
            } catch where error.code == EEXIST {
                try? rejected.unlink(sidecar)
                continue
            } catch {
                try? rejected.unlink(sidecar)
                throw error
            }
            faults.reached(.rejectionMoved)
            try rejected.sync()
            try location.folder.sync()
            return .rejected(name: name)
        }
        throw SystemError("find a free name in", folder.path, code: EEXIST)
    }

    /// `rejected/`, made if it is missing.
    private func heldFolder() throws(SystemError) -> HeldFolder {
        do {
            return try folder.folder()
        } catch where error.code == ENOENT {
            try FileOps.makeDirectory(folder.path, mode: 0o755)  // shared with the group, unlike the state folder
            return try folder.folder()
        }
    }

    /// `Spoon.jpg`, then `Spoon (2).jpg`, `Spoon (3).jpg` …, shortened to fit `nameMax` bytes
    /// together with the sidecar suffix (unless `shortened` is false: `retry` gives a file
    /// back its own name or none).
    static func candidateName(for original: [UInt8], attempt: Int, shortened: Bool = true) -> [UInt8] {
        let dot = original.lastIndex(of: UInt8(ascii: "."))
        var stem = dot.map { Array(original[..<$0]) } ?? original
        let fileExtension = dot.map { Array(original[$0...]) } ?? []
        let suffix = attempt == 1 ? [] : Array(" (\(attempt))".utf8)
        let budget = nameMax - RejectionSidecar.suffix.utf8.count - suffix.count - fileExtension.count
        if shortened, stem.count > budget { stem = truncatedUTF8(stem, toAtMost: max(budget, 1)) }
        return stem + suffix + fileExtension
    }

    static func sidecarName(for name: [UInt8]) -> [UInt8] {
        name + Array(RejectionSidecar.suffix.utf8)
    }

    /// Cuts bytes at a UTF-8 character boundary where the bytes are UTF-8.
    static func truncatedUTF8(_ bytes: [UInt8], toAtMost limit: Int) -> [UInt8] {
        var end = min(limit, bytes.count)
        while end > 0, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(bytes[..<end])
    }
}
