import Foundation
import UtensilCatalog
import UtensilControlProtocol
import UtensilIngest

/// `utensilctl check`: database integrity, rows whose files are missing, files without rows.
/// Files younger than a minute are left out: an ingest in flight writes its files just
/// before its row.
struct ConsistencyCheck: Sendable {
    let settings: IngestSettings
    let catalog: Catalog

    func run() throws -> CheckReport {
        let integrity = try catalog.integrityCheck()
        let ids = try catalog.allIDs()
        var rowsWithoutFiles: [String] = []
        var filesWithoutRows: [String] = []
        var present: [UUID: Int] = [:]
        let fileManager = FileManager.default
        for folder in [settings.originals.description, settings.thumbnails.description] {
            for name in (try? fileManager.contentsOfDirectory(atPath: folder)) ?? [] {
                let path = folder + "/" + name
                let id = name.split(separator: ".").first.flatMap { UUID(uuidString: String($0)) }
                if let id, ids.contains(id) {
                    present[id, default: 0] += 1
                    continue
                }
                let modified = (try? fileManager.attributesOfItem(atPath: path))?[.modificationDate] as? Date
                if let modified, Date().timeIntervalSince(modified) < 60 { continue }
                filesWithoutRows.append(path)
            }
        }
        for id in ids where present[id, default: 0] < 2 {
            rowsWithoutFiles.append(id.uuidString)
        }
        return CheckReport(
            integrity: integrity, rowsWithoutFiles: rowsWithoutFiles.sorted(), filesWithoutRows: filesWithoutRows.sorted())
    }
}
