import Foundation
import GRDB
import UtensilCatalogModel

/// Look-alikes: utensils found by their photo's fingerprint (the column `fingerprint`,
/// migration `v12-fingerprints`), through one index a 16-bit block (``FingerprintBlocks``).
extension SQLiteCatalog {
    /// The migration `v12-fingerprints`: the column, and an index on each of its four blocks
    /// that holds the whole fingerprint too, so a look-up reads the index alone until a match.
    static func addFingerprints(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE utensil ADD COLUMN fingerprint INTEGER")
        for block in 0..<FingerprintBlocks.count {
            try db.execute(
                sql: "CREATE INDEX utensil_fingerprint_\(block) ON utensil(\(FingerprintBlocks.expression(block)), fingerprint)")
        }
    }

    /// The migration `v13-near-duplicates`: the utensil each was ingested as a look-alike of
    /// (its name then, the distance), and the pairs marked "not a copy" (`notACopy`, the
    /// smaller id first; gone with either utensil).
    static func addNearDuplicates(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE utensil ADD COLUMN nearDuplicateOf TEXT;
            ALTER TABLE utensil ADD COLUMN nearDuplicateName TEXT;
            ALTER TABLE utensil ADD COLUMN nearDuplicateDistance INTEGER;
            CREATE INDEX utensil_nearDuplicateOf ON utensil(nearDuplicateOf) WHERE nearDuplicateOf IS NOT NULL;
            CREATE TABLE notACopy(
                utensilId TEXT NOT NULL REFERENCES utensil(id) ON DELETE CASCADE,
                otherId TEXT NOT NULL REFERENCES utensil(id) ON DELETE CASCADE,
                PRIMARY KEY (utensilId, otherId)
            ) WITHOUT ROWID;
            CREATE INDEX notACopy_on_otherId ON notACopy(otherId);
            """)
    }

    public func nearDuplicatePairs(limit: Int) throws(CatalogError) -> [NearDuplicatePair] {
        guard limit > 0 else { return [] }
        return try read { db in
            let copies = try UtensilRecord.fetchAll(db, sql: """
                SELECT c.* FROM utensil c JOIN utensil o ON o.id = c.nearDuplicateOf
                WHERE c.nearDuplicateOf IS NOT NULL AND c.trashedAt IS NULL AND o.trashedAt IS NULL
                    AND NOT EXISTS (SELECT 1 FROM notACopy n WHERE n.utensilId = min(c.id, o.id) AND n.otherId = max(c.id, o.id))
                ORDER BY c.createdAt DESC, c.id DESC LIMIT ?
                """, arguments: [limit])
            return try copies.compactMap { copy in
                guard let near = copy.nearDuplicate, let original = try UtensilRecord.fetchOne(db, key: near.id) else { return nil }
                return NearDuplicatePair(copy: copy, original: original, distance: near.distance)
            }
        }
    }

    public func markNotACopy(_ id: UUID, _ other: UUID) throws(CatalogError) {
        let pair = [id.uuidString, other.uuidString].sorted()
        try write { db in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM utensil WHERE id IN (?, ?)", arguments: [pair[0], pair[1]])
                == Set(pair).count
            else { throw CatalogError.notFound }
            try db.execute(
                sql: "INSERT INTO notACopy(utensilId, otherId) VALUES (?, ?) ON CONFLICT DO NOTHING", arguments: [pair[0], pair[1]])
            try db.execute(
                sql: """
                    UPDATE utensil SET nearDuplicateOf = NULL, nearDuplicateName = NULL, nearDuplicateDistance = NULL
                    WHERE (id = ? AND nearDuplicateOf = ?) OR (id = ? AND nearDuplicateOf = ?)
                    """, arguments: [pair[0], pair[1], pair[1], pair[0]])
        }
    }

    public func setFingerprint(id: UUID, to fingerprint: Int64, ofPhoto sha256: String) throws(CatalogError) -> Bool {
        try write { db in
            try db.execute(
                sql: "UPDATE utensil SET fingerprint = ? WHERE id = ? AND sha256 = ?", arguments: [fingerprint, id.uuidString, sha256])
            return db.changesCount > 0
        }
    }

    public func fingerprints(after id: UUID?, limit: Int) throws(CatalogError) -> [IdentifiedFingerprint] {
        guard limit > 0 else { return [] }
        return try read { db in
            var page: [IdentifiedFingerprint] = []
            let rows = try Row.fetchCursor(
                db, sql: """
                    SELECT id, fingerprint FROM utensil WHERE id > ? AND fingerprint IS NOT NULL AND trashedAt IS NULL
                    ORDER BY id LIMIT ?
                    """, arguments: [id?.uuidString ?? "", limit])
            while let row = try rows.next() {
                if let found = UUID(uuidString: row[0]) { page.append(IdentifiedFingerprint(id: found, fingerprint: row[1])) }
            }
            return page
        }
    }

    public func fingerprints(createdSince since: Date) throws(CatalogError) -> [IdentifiedFingerprint] {
        try read { db in
            var found: [IdentifiedFingerprint] = []
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, fingerprint FROM utensil WHERE createdAt >= ? AND fingerprint IS NOT NULL AND trashedAt IS NULL",
                arguments: [CatalogDate.value(since)])
            while let row = try rows.next() {
                if let id = UUID(uuidString: row[0]) { found.append(IdentifiedFingerprint(id: id, fingerprint: row[1])) }
            }
            return found
        }
    }

    public func unfingerprinted(among ids: [UUID]) throws(CatalogError) -> Set<UUID> {
        if ids.isEmpty { return [] }
        return try read { db in
            var found = Set<UUID>()
            // SQLite binds at most 32,766 values per statement: a page is far below, but be safe.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start..<min(start + 500, ids.count)]
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try String.fetchAll(
                    db, sql: "SELECT id FROM utensil WHERE fingerprint IS NULL AND id IN (\(marks))",
                    arguments: StatementArguments(chunk.map(\.uuidString)))
                for text in rows { if let id = UUID(uuidString: text) { found.insert(id) } }
            }
            return found
        }
    }

    public func lookalikes(of fingerprint: Int64, within maximumDistance: Int, limit: Int) throws(CatalogError) -> [LookalikeMatch] {
        guard maximumDistance >= 0, limit > 0 else { return [] }
        return try read { db in
            // The fingerprints alone are read (the index holds them, and SQLite hands a whole
            // number over fastest); the rows of the few within the distance after.
            var near = Set<Int64>()
            func consider(_ fingerprints: DatabaseValueCursor<Int64>) throws {
                while let candidate = try fingerprints.next() {
                    if FingerprintBlocks.distance(candidate, fingerprint) <= maximumDistance { near.insert(candidate) }
                }
            }
            if maximumDistance > FingerprintBlocks.indexedDistance {
                try consider(Int64.fetchCursor(db, sql: "SELECT fingerprint FROM utensil WHERE fingerprint IS NOT NULL"))
            } else {
                for (block, values) in FingerprintBlocks.probes(of: fingerprint, within: maximumDistance).enumerated() {
                    // Whole numbers only, written out: one statement a block, its IN list read through the index.
                    let list = values.map(String.init).joined(separator: ",")
                    try consider(Int64.fetchCursor(
                        db, sql: "SELECT fingerprint FROM utensil WHERE \(FingerprintBlocks.expression(block)) IN (\(list))"))
                }
            }
            var candidates: [(UtensilRecord, Int)] = []
            for found in near {
                // `+fingerprint`: SQLite would substitute a plain `fingerprint = ?` into the
                // block's expression, which would then no longer name the index.
                let records = try UtensilRecord.fetchAll(
                    db, sql: "SELECT * FROM utensil WHERE \(FingerprintBlocks.expression(0)) = ? AND +fingerprint = ?",
                    arguments: [found & 65535, found])
                candidates += records.map { ($0, FingerprintBlocks.distance(found, fingerprint)) }
            }
            var matches: [LookalikeMatch] = []
            for (record, distance) in candidates where record.trashedAt == nil {
                matches.append(LookalikeMatch(utensil: record, distance: distance))
            }
            matches.sort { ($0.distance, $0.utensil.createdAt, $0.utensil.id.uuidString) < ($1.distance, $1.utensil.createdAt, $1.utensil.id.uuidString) }
            return Array(matches.prefix(limit))
        }
    }
}
