import Foundation
import UtensilCore
import UtensilStorage

/// Reads a sidecar from `rejected/`, a folder members of the group can write: so the file
/// read may be anything they planted. It is read only if it is a regular file (a symbolic
/// link is not followed, a FIFO does not block) of at most `maximumBytes`.
public enum SidecarFile {
    /// A sidecar utensild writes is a few hundred bytes; anything past this is not one.
    public static let maximumBytes = 65536

    /// The sidecar `name` (no `/`) directly in the held `folder`, opened relative to it: no
    /// component of the way to it is a path a group member could swap for a link. Nil when
    /// there is none or it is not a sidecar utensild wrote.
    public static func read(_ name: [UInt8], in folder: HeldFolder) -> RejectionSidecar? {
        guard !name.contains(0), !name.contains(HeldFolder.slash),
              let bytes = try? FileOps.readRegularFile(name, in: folder, limit: maximumBytes)
        else { return nil }
        return try? JSONDecoder().decode(RejectionSidecar.self, from: Data(bytes))
    }
}
