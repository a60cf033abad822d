import Foundation
import UtensilCore

extension RenditionKey {
    /// The key of the live rendition whose file (or object) in `rendition`'s folder is called
    /// `name`, when the name is exactly as ``fileName`` spells it: the id in `uuidString` form,
    /// an extension of 1–8 lower-case letters and digits (`jpeg` for all but the original). Any
    /// other name — a lower-case id, `….jpeg.bak`, a thumbnail in PNG — is nil: no rendition of
    /// the daemon's, so a sweep or `check` never acts on, or reports, a name it did not list.
    public init?(liveName name: some StringProtocol, of rendition: Rendition) {
        guard let dot = name.firstIndex(of: "."), let utensil = UUID(uuidString: String(name[..<dot])) else { return nil }
        let fileExtension = String(name[name.index(after: dot)...])
        guard (1...8).contains(fileExtension.utf8.count),
              fileExtension.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }),
              rendition == .original || fileExtension == rendition.fileExtension(original: fileExtension)
        else { return nil }
        self.init(utensil: utensil, rendition: rendition, fileExtension: fileExtension)
        guard fileName == name else { return nil }
    }
}
