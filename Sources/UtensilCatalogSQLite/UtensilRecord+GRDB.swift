import Foundation
import GRDB
import UtensilCatalogModel

/// How the SQLite backend stores a ``UtensilRecord``: a row of the table `utensil`, its
/// columns named by the record's coding keys. The record itself knows nothing of GRDB.
extension UtensilRecord: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "utensil" }

    /// Ids are stored as text in `uuidString` form, readable with the sqlite3 CLI.
    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
        .uppercaseString
    }

    /// Dates as GRDB has always stored them (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), without ICU.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { CatalogDate.value($0) }
    }

    /// Reads what ``databaseDateEncodingStrategy(for:)`` wrote (and any date GRDB reads).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .custom { CatalogDate.date(from: $0) }
    }

    /// Column names, for queries.
    public enum Columns {
        public static let id = Column("id")
        public static let name = Column("name")
        public static let nameKey = Column("nameKey")
        public static let searchKey = Column("searchKey")
        public static let createdAt = Column("createdAt")
        public static let sha256 = Column("sha256")
        public static let sourceKey = Column("sourceKey")
        public static let categoryKey = Column("categoryKey")
        public static let trashedAt = Column("trashedAt")
        public static let sortKey = Column("sortKey")
    }
}
