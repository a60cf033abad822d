import ArgumentParser
import Foundation
import Logging
import UtensilCatalogPostgres
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

extension CatalogSupport {
    /// `--check-config` with a PostgreSQL catalog: reads the password, connects and checks
    /// (``PostgresCatalogCheck``). Returns the lines to print after the configuration (TOML
    /// comments: the report, where the password came from, the groundwork note), or nothing
    /// for SQLite; on a problem, prints its sentence and throws exit code 78.
    static func check(_ configuration: UtensilConfiguration, environment: [String: String]) async throws -> [String] {
        guard case .postgres(let url) = configuration.catalog else { return [] }
        let source = configuration.catalogPasswordSource(environment: environment)
        let logger = Logger(label: "utensild.check-config") { _ in SwiftLogNoOpLogHandler() }
        do {
            let settings = PostgresCatalogSettings(url: url, password: try source.read())
            let report = try await PostgresCatalogCheck.run(settings: settings, logger: logger)
            return ["# catalog: \(report)", "# catalog: \(source)", "# catalog: \(groundworkNote)"]
        } catch let error as CatalogPasswordError {
            throw failure("\(error)")
        } catch let problem as PostgresCatalogProblem {
            throw failure("catalog: \(problem)")
        }
    }

    private static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("utensild: \(message)\n".utf8))
        return ExitCode(78)
    }
}
