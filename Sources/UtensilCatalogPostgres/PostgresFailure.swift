import Logging
import PostgresNIO
import UtensilCatalogModel

/// How the PostgreSQL catalog reads what postgres-nio reports: by SQLSTATE, constraint name
/// and the client's error code, never by the server's wording (kept for logs only).
enum PostgresFailure {
    /// The unique indexes whose refusals the caller can act on (see ``PostgresSchema``).
    enum Claim: String {
        case name = "utensils_name_claim"
        case content = "utensils_content_claim"
        case source = "utensils_source_key"
    }

    /// The claim a unique violation (SQLSTATE 23505) hit, or nil when `error` is not one of
    /// those (another constraint, or not a unique violation at all).
    static func claim(of error: any Error) -> Claim? {
        guard let error = psqlError(error), error.serverInfo?[.sqlState] == "23505" else { return nil }
        return error.serverInfo?[.constraintName].flatMap(Claim.init(rawValue:))
    }

    /// A deadlock (40P01) or serialization failure (40001): the transaction may simply be run again.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let state = psqlError(error)?.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }

    /// Whether `error` means the session is over: the server ended it (severity FATAL or
    /// PANIC, e.g. 57P01 on a restart) or the connection broke. Nothing more may be sent on it
    /// (see ``PostgresTransaction``).
    static func endsTheSession(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .server:
            let severity = error.serverInfo?[.severity]
            return severity == "FATAL" || severity == "PANIC"
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            return true
        default:
            return false
        }
    }

    /// `error` as a ``CatalogError``: a ``CatalogError`` passes through; everything else —
    /// the server unreachable, shutting down or starting (57P01–57P03), a connection
    /// exception (08…), out of resources (53…), a connection closed, or any other failure of
    /// the database — is ``CatalogError/unavailable(code:detail:)``, which the caller retries.
    /// `code` is -1 (a SQLSTATE is not a number); `detail` names the SQLSTATE or the client's code.
    static func catalogError(_ error: any Error) -> CatalogError {
        if let catalogError = error as? CatalogError { return catalogError }
        guard let error = error as? PSQLError else {
            // The pool's own errors: no connection could be made for a while (its circuit breaker), …
            return .unavailable(code: -1, detail: "PostgreSQL: \(error)")
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?????"
            let message = error.serverInfo?[.message] ?? ""
            return .unavailable(code: -1, detail: "PostgreSQL SQLSTATE \(state): \(message)")
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return .unavailable(code: -1, detail: "PostgreSQL cannot be reached (\(error.code))")
        default:
            return .unavailable(code: -1, detail: "PostgreSQL client error \(error.code)")
        }
    }

    private static func psqlError(_ error: any Error) -> PSQLError? {
        error as? PSQLError
    }
}

extension PostgresCatalog {
    /// Runs `statement` inside a savepoint of the current transaction; a unique violation of
    /// one of the claims rolls back to the savepoint (the transaction goes on) and is returned
    /// as the claim hit. Any other failure is thrown.
    static func claiming(
        _ statement: PostgresQuery, on connection: PostgresConnection, logger: Logger
    ) async throws -> PostgresFailure.Claim? {
        try await connection.query("SAVEPOINT claim", logger: logger)
        do {
            try await connection.query(statement, logger: logger)
        } catch {
            guard let claim = PostgresFailure.claim(of: error) else { throw error }
            try await connection.query("ROLLBACK TO SAVEPOINT claim", logger: logger)
            return claim
        }
        try await connection.query("RELEASE SAVEPOINT claim", logger: logger)
        return nil
    }

    /// Why `record`'s claim was refused: the utensil holding it now (same transaction, after
    /// the savepoint's rollback).
    static func refusal(
        _ claim: PostgresFailure.Claim, of record: UtensilRecord, on connection: PostgresConnection, logger: Logger
    ) async throws -> CatalogError {
        let id = record.id
        switch claim {
        case .name:
            let query: PostgresQuery = "SELECT name FROM utensils WHERE name_claim = \(record.nameClaim) AND id <> \(id)"
            if let existing = try await value(String.self, query, on: connection, logger: logger) {
                return .duplicateName(existing: existing)
            }
        case .content:
            let query: PostgresQuery = "SELECT name FROM utensils WHERE content_claim = \(record.contentClaim) AND id <> \(id)"
            if let existing = try await value(String.self, query, on: connection, logger: logger) {
                return .duplicateContent(existing: existing)
            }
        case .source:
            let query: PostgresQuery = "SELECT name FROM utensils WHERE source_key = \(record.sourceKey) AND id <> \(id)"
            if try await value(String.self, query, on: connection, logger: logger) != nil {
                return .alreadyIngested
            }
        }
        // The holder went away between the refusal and the look-up: the caller tries again.
        return .unavailable(code: -1, detail: "PostgreSQL: the utensil holding the \(claim.rawValue) claim changed meanwhile")
    }
}
