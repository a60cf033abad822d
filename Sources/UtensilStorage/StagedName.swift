import Foundation
import UtensilCore

/// The name of a file an operation staged in `staging/<host_name>/`:
/// `<utensil id>.<operation id>.<rendition>.<ext>` (`….original.png`, `….thumbnail.jpeg`,
/// `….preview.jpeg`). The operation id keeps a delete and a replacement of the same utensil
/// apart.
public struct StagedName: Hashable, Sendable {
    public var utensil: UUID
    public var operation: UUID
    public var rendition: Rendition
    /// The file's extension: the photo's type for the original, `jpeg` for the others.
    public var fileExtension: String

    public init(utensil: UUID, operation: UUID, rendition: Rendition, fileExtension: String) {
        self.utensil = utensil
        self.operation = operation
        self.rendition = rendition
        self.fileExtension = fileExtension
    }

    /// The parts of a staged file's name; nil for any other name (a temporary, a stray). Only
    /// a name exactly as ``bytes`` spells it is taken: ids in `uuidString` form, an extension of
    /// 1–8 lower-case letters and digits (`jpeg` for all but the original). So the name a sweep
    /// or a recovery acts on is the very name listed, and a planted name that parses almost
    /// right (a lower-case id, `….jpg/../../x` in a bucket, `….thumbnail.png`) is left alone
    /// rather than taken for another.
    public init?(parsing name: [UInt8]) {
        let parts = name.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 4, let utensil = UUID(uuidString: parts[0]), let operation = UUID(uuidString: parts[1]),
              let rendition = Rendition(rawValue: parts[2]), (1...8).contains(parts[3].utf8.count),
              parts[3].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }),
              rendition == .original || parts[3] == rendition.fileExtension(original: parts[3])
        else { return nil }
        self.init(utensil: utensil, operation: operation, rendition: rendition, fileExtension: parts[3])
        guard bytes == name else { return nil }
    }

    /// The name's bytes.
    public var bytes: [UInt8] {
        Array("\(utensil.uuidString).\(operation.uuidString).\(rendition.rawValue).\(fileExtension)".utf8)
    }
}
