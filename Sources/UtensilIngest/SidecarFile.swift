import Foundation
import UtensilCore

/// Reads a sidecar from `rejected/`, a folder members of the group can write: so the file
/// read may be anything they planted. It is read only if it is a regular file (a symbolic
/// link is not followed, a FIFO does not block) of at most `maximumBytes`.
public enum SidecarFile {
    /// A sidecar utensild writes is a few hundred bytes; anything past this is not one.
    public static let maximumBytes = 65536

    /// The sidecar `name` in `folder`, or nil when there is none or it is not a sidecar utensild wrote.
    static func read(_ name: [UInt8], in folder: HeldFolder) -> RejectionSidecar? {
        guard let bytes = try? FileOps.readRegularFile(name, in: folder, limit: maximumBytes) else { return nil }
        return try? JSONDecoder().decode(RejectionSidecar.self, from: Data(bytes))
    }
}
