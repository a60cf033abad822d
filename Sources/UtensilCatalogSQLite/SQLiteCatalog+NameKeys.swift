import GRDB
import UtensilCatalogModel
import UtensilCore

extension SQLiteCatalog {
    /// Migration `v2-ignorable-keys`: recomputes every row's `nameKey` and `searchKey` with
    /// `UtensilName`'s current rules (default-ignorable code points left out), for catalogs
    /// written before. Where two existing names now share a key and duplicate names are
    /// refused, one of them holds the claim (which is all a new drop is checked against);
    /// both utensils stay, nothing is lost.
    static func recomputeNameKeys(_ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT id, name, nameKey, searchKey, nameClaim FROM utensil ORDER BY createdAt, id")
        for row in rows {
            let id: String = row["id"], name: String = row["name"]
            let nameKey = UtensilName.uniquenessKey(for: name), searchKey = UtensilName.searchKey(for: name)
            guard nameKey != row["nameKey"] || searchKey != row["searchKey"] else { continue }
            var claim: String? = row["nameClaim"]
            if claim != nil {
                let taken = try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM utensil WHERE nameClaim = ? AND id != ?)", arguments: [nameKey, id]) ?? false
                claim = taken ? nil : nameKey
            }
            try db.execute(
                sql: "UPDATE utensil SET nameKey = ?, searchKey = ?, nameClaim = ? WHERE id = ?",
                arguments: [nameKey, searchKey, claim, id])
        }
    }
}
