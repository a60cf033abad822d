import Foundation
import GRDB
import UtensilCatalogModel

/// The whole catalog as plain values (``CatalogContents``): read out of one SQLite catalog
/// (a backup's, for `utensild restore` into another backend) and loaded into an empty one.
extension SQLiteCatalog {
    /// Every utensil (the trash too, in id order), favorite, decoder crash and pair marked not a copy, read in one
    /// transaction.
    public func contents() throws(CatalogError) -> CatalogContents {
        try read { db in
            let utensils = try UtensilRecord.order(UtensilRecord.Columns.id).fetchAll(db)
            let favorites = try Row.fetchAll(db, sql: "SELECT userName, utensilId FROM favorite ORDER BY userName, utensilId")
                .compactMap { row -> CatalogFavorite? in
                    guard let id = UUID(uuidString: row["utensilId"]) else { return nil }
                    return CatalogFavorite(user: row["userName"], utensilID: id)
                }
            let crashes = try Row.fetchAll(db, sql: "SELECT sourceKey, crashes FROM decoderCrash ORDER BY sourceKey")
                .map { CatalogDecoderCrash(sourceKey: $0["sourceKey"], crashes: $0["crashes"]) }
            let pairs = try Row.fetchAll(db, sql: "SELECT utensilId, otherId FROM notACopy ORDER BY utensilId, otherId")
                .compactMap { row -> CatalogNotACopy? in
                    guard let id = UUID(uuidString: row["utensilId"]), let other = UUID(uuidString: row["otherId"]) else { return nil }
                    return CatalogNotACopy(id, other)
                }
            return CatalogContents(utensils: utensils, favorites: favorites, decoderCrashes: crashes, notACopy: pairs)
        }
    }

    /// Loads `contents` into this catalog when it holds no utensil, in one transaction; see
    /// ``CatalogLoading/load(_:)``.
    public func load(_ contents: CatalogContents) throws(CatalogError) {
        do {
            try writer.write { db in
                let held = try UtensilRecord.fetchCount(db)
                guard held == 0 else { throw CatalogError.notEmpty(utensils: held) }
                try Self.insert(contents, db)
            }
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError.from(error)
        }
    }

    /// Inserts every row of `contents` (crash counts already held are replaced).
    static func insert(_ contents: CatalogContents, _ db: Database) throws {
        for record in contents.utensils { try record.insert(db) }
        let mark = try db.makeStatement(sql: "INSERT INTO favorite(userName, utensilId) VALUES (?, ?)")
        for favorite in contents.favorites {
            try mark.execute(arguments: [favorite.user, favorite.utensilID.uuidString])
        }
        let crash = try db.makeStatement(sql: "INSERT OR REPLACE INTO decoderCrash(sourceKey, crashes) VALUES (?, ?)")
        for count in contents.decoderCrashes {
            try crash.execute(arguments: [count.sourceKey, count.crashes])
        }
        let pair = try db.makeStatement(sql: "INSERT INTO notACopy(utensilId, otherId) VALUES (?, ?)")
        for marked in contents.notACopy {
            try pair.execute(arguments: [marked.utensilID.uuidString, marked.otherID.uuidString])
        }
    }
}
