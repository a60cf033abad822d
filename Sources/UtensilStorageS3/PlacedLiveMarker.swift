import Foundation
import UtensilCore
import UtensilStorage

/// The empty object a new utensil's operation (``S3Storage/stageNew(_:of:originalExtension:)``)
/// leaves in its host's `staging/<host_name>/` while its renditions sit under their live keys
/// before the row's commit: `<utensil id>.<operation id>.new.<ext>`, `<ext>` the original's.
/// Put before the first rendition and deleted after the commit (or with the renditions when
/// there is none), it is how a crash in between shows in ``S3Storage/listStaged()``, for the
/// host's next start to finish or undo, rather than only as live objects of no row.
struct PlacedLiveMarker: Hashable, Sendable {
    var utensil: UUID
    var operation: UUID
    /// The original's extension: the key of the live original to delete when undone.
    var originalExtension: String

    init(utensil: UUID, operation: UUID, originalExtension: String) {
        self.utensil = utensil
        self.operation = operation
        self.originalExtension = originalExtension
    }

    init(of operation: StagedRenditions) {
        self.init(utensil: operation.utensil, operation: operation.operation, originalExtension: operation.originalExtension)
    }

    /// The word between the ids, which no ``Rendition`` spells: ``StagedName`` never takes a
    /// marker for a staged rendition.
    static let word = "new"

    /// A marker's parts; nil for any other name. As strict as ``StagedName/init(parsing:)``:
    /// only a name exactly as ``name`` spells it.
    init?(parsing name: String) {
        let parts = name.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[2] == Self.word, let utensil = UUID(uuidString: parts[0]),
              let operation = UUID(uuidString: parts[1]), (1...8).contains(parts[3].utf8.count),
              parts[3].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        self.init(utensil: utensil, operation: operation, originalExtension: parts[3])
        guard self.name == name else { return nil }
    }

    /// Its name in the host's staging folder.
    var name: String { "\(utensil.uuidString).\(operation.uuidString).\(Self.word).\(originalExtension)" }

    /// The operation it stands for: placed live, with every rendition it may have put (deleting
    /// one it did not put is fine).
    var operationPlacedLive: StagedRenditions {
        StagedRenditions(
            utensil: utensil, operation: operation, originalExtension: originalExtension,
            renditions: Set(Rendition.allCases), isPlacedLive: true)
    }
}
