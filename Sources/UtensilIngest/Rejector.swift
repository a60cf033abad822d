import Foundation
import UtensilCore

/// Moves a failed drop to `rejected/` beside a sidecar that tells a person why.
///
/// The sidecar is made durable first, then the drop is renamed next to it without ever
/// replacing a file (a clash gets ` (2)`, ` (3)` … before the extension). A crash between the
/// two leaves the drop in the inbox and a sidecar without its file, which start-up
/// reconciliation removes; so a drop always ends up rejected exactly once.
struct Rejector: Sendable {
    let folder: RawPath
    let faults: FaultInjection

    /// The longest file name Linux file systems take, in bytes.
    static let nameMax = 255

    /// Rejects `drop`; returns the name it has in `rejected/`.
    func reject(_ drop: Drop, _ rejection: Rejection, bytes: Int) throws(SystemError) -> [UInt8] {
        try FileOps.makeDirectory(folder)
        let original = drop.fileName
        for attempt in 1...10_000 {
            let name = Self.candidateName(for: original, attempt: attempt)
            let target = folder.appending(name)
            let sidecar = folder.appending(Self.sidecarName(for: name))
            if (try? FileOps.lstat(target)) != nil || (try? FileOps.lstat(sidecar)) != nil { continue }
            let document = RejectionSidecar(
                file: original.lossyString, reason: rejection.reason, message: rejection.message,
                rejectedAt: Date(), bytes: bytes, rejectedAs: name.lossyString,
                inboxPath: drop.inboxPath.lossyString)
            let json = Array(document.encoded()) + Array("\n".utf8)
            do {
                try FileOps.writeDurably(json, to: sidecar, mode: 0o644)
            } catch where error.code == EEXIST {
                continue
            }
            faults.reached(.sidecarWritten)
            do {
                try FileOps.renameNoReplace(drop.path, to: target)
            } catch where error.code == EEXIST {
                try? FileOps.unlink(sidecar)
                continue
            } catch {
                try? FileOps.unlink(sidecar)
                throw error
            }
            faults.reached(.rejectionMoved)
            try FileOps.fsyncDirectory(folder)
            try FileOps.fsyncDirectory(drop.path.parent)
            return name
        }
        throw SystemError("find a free name in", folder, code: EEXIST)
    }

    /// `Spoon.jpg`, then `Spoon (2).jpg`, `Spoon (3).jpg` …, shortened to fit `nameMax` bytes
    /// together with the sidecar suffix.
    static func candidateName(for original: [UInt8], attempt: Int) -> [UInt8] {
        let dot = original.lastIndex(of: UInt8(ascii: "."))
        var stem = dot.map { Array(original[..<$0]) } ?? original
        let fileExtension = dot.map { Array(original[$0...]) } ?? []
        let suffix = attempt == 1 ? [] : Array(" (\(attempt))".utf8)
        let budget = nameMax - RejectionSidecar.suffix.utf8.count - suffix.count - fileExtension.count
        if stem.count > budget { stem = truncatedUTF8(stem, toAtMost: max(budget, 1)) }
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
