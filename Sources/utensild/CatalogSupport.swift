import UtensilConfig

/// Which catalogs this utensild can run with. PostgreSQL is groundwork so far: the key is
/// parsed and `--check-config` connects to test the set-up, but the daemon, `--oneshot` and
/// `restore` keep their catalog in SQLite only. They refuse a PostgreSQL `catalog` (exit 78)
/// rather than silently use SQLite when PostgreSQL was configured.
enum CatalogSupport {
    /// nil when this utensild can run with the configured catalog, else why not (one line).
    static func refusal(_ configuration: UtensilConfiguration) -> String? {
        guard case .postgres = configuration.catalog else { return nil }
        return "catalog = \"\(configuration.catalog)\": this version of utensild cannot keep its catalog in PostgreSQL yet (only --check-config connects to it, to test the set-up); set catalog = \"sqlite\" to run it"
    }

    /// The note `--check-config` prints after a successful PostgreSQL check.
    static let groundworkNote =
        "note: this version of utensild only tests the PostgreSQL catalog here; the daemon refuses to start with it until the PostgreSQL backend lands"
}
