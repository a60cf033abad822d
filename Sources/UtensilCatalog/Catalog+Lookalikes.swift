import Foundation
import GRDB
import UtensilCatalogModel

/// Look-alikes: utensils found by their photo's fingerprint (the column `fingerprint`,
/// migration `v12-fingerprints`), through one index a 16-bit block (``FingerprintBlocks``).
extension Catalog {
    /// The migration `v12-fingerprints`: the column, and an index on each of its four blocks
    /// that holds the whole fingerprint too, so a look-up reads the index alone until a match.
    static func addFingerprints(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE utensil ADD COLUMN fingerprint INTEGER")
        for block in 0..<FingerprintBlocks.count {
            try db.execute(
                sql: "CREATE INDEX utensil_fingerprint_\(block) ON utensil(\(FingerprintBlocks.expression(block)), fingerprint)")
        }
    }

    public func lookalikes(of fingerprint: Int64, within maximumDistance: Int, limit: Int) throws(CatalogError) -> [LookalikeMatch] {
        guard maximumDistance >= 0, limit > 0 else { return [] }
        return try read { db in
            var candidates: [Int64: Int] = [:]  // rowid → distance
            func consider(_ rows: RowCursor) throws {
                while let row = try rows.next() {
                    let distance = FingerprintBlocks.distance(row[1], fingerprint)
                    if distance <= maximumDistance { candidates[row[0]] = distance }
                }
            }
            if maximumDistance > FingerprintBlocks.indexedDistance {
                try consider(Row.fetchCursor(db, sql: "SELECT rowid, fingerprint FROM utensil WHERE fingerprint IS NOT NULL"))
            } else {
                for (block, values) in FingerprintBlocks.probes(of: fingerprint, within: maximumDistance).enumerated() {
                    // Whole numbers only, written out: one statement a block, its IN list read through the index.
                    let list = values.map(String.init).joined(separator: ",")
                    try consider(Row.fetchCursor(
                        db, sql: "SELECT rowid, fingerprint FROM utensil WHERE \(FingerprintBlocks.expression(block)) IN (\(list))"))
                }
            }
            var matches: [LookalikeMatch] = []
            for (rowid, distance) in candidates {
                guard let record = try UtensilRecord.fetchOne(db, sql: "SELECT * FROM utensil WHERE rowid = ?", arguments: [rowid]),
                    record.trashedAt == nil
                else { continue }
                matches.append(LookalikeMatch(utensil: record, distance: distance))
            }
            matches.sort { ($0.distance, $0.utensil.createdAt, $0.utensil.id.uuidString) < ($1.distance, $1.utensil.createdAt, $1.utensil.id.uuidString) }
            return Array(matches.prefix(limit))
        }
    }
}
