import Foundation
import Testing
@testable import UtensilConfig

/// `catalog` (SQLite or a PostgreSQL URL without a password) and `catalog_password_file`.
@Suite struct CatalogSettingsTests {
    @Test func sqliteIsTheDefault() throws {
        let folder = try TemporaryFolder()
        let configuration = try load(in: folder)
        #expect(configuration.catalog == .sqlite)
        #expect(configuration.catalogPasswordFile == "")
        #expect(configuration.renderedValue(of: .catalog) == "\"sqlite\"")
        #expect(configuration.catalogPasswordSource(environment: [:]) == CatalogPasswordSource.none)
        #expect(!ConfigKey.catalog.isReloadable && !ConfigKey.catalogPasswordFile.isReloadable)
    }

    @Test(arguments: [
        ("postgresql://utensil@db.example.org:5432/utensils",
         PostgresURL(user: "utensil", server: .tcp(host: "db.example.org"), database: "utensils"),
         "postgresql://utensil@db.example.org:5432/utensils"),
        ("postgres://utensil@10.0.0.5/utensils",
         PostgresURL(user: "utensil", server: .tcp(host: "10.0.0.5"), database: "utensils"),
         "postgresql://utensil@10.0.0.5:5432/utensils"),
        ("postgresql://utensil@[fd00::5]:6543/utensils",
         PostgresURL(user: "utensil", server: .tcp(host: "fd00::5"), port: 6543, database: "utensils"),
         "postgresql://utensil@[fd00::5]:6543/utensils"),
        ("postgresql://utensil@/utensils?host=/run/postgresql",
         PostgresURL(user: "utensil", server: .unixSocket(directory: "/run/postgresql"), database: "utensils"),
         "postgresql://utensil@/utensils?host=/run/postgresql"),
        ("postgresql://utensil@:5433/utensils?host=/run/postgresql/",
         PostgresURL(user: "utensil", server: .unixSocket(directory: "/run/postgresql"), port: 5433, database: "utensils"),
         "postgresql://utensil@/utensils?host=/run/postgresql&port=5433"),
        ("postgresql://k%C3%BCche@/photos%201?port=5433&host=%2Frun%2Fpostgresql",
         PostgresURL(user: "küche", server: .unixSocket(directory: "/run/postgresql"), port: 5433, database: "photos 1"),
         "postgresql://k%C3%BCche@/photos%201?host=/run/postgresql&port=5433"),
    ])
    func postgresURLsAreParsedAndRenderedCanonically(text: String, url: PostgresURL, canonical: String) throws {
        let folder = try TemporaryFolder()
        let configuration = try load(flags: [.catalog: text], in: folder)
        #expect(configuration.catalog == .postgres(url))
        #expect(configuration.renderedValue(of: .catalog) == "\"\(canonical)\"")
        #expect(try load(toml: configuration.renderTOML(), in: folder) == configuration)
    }

    @Test(arguments: [
        ("postgresql://utensil@db:5432/utensils?sslmode=disable",
         PostgresURL(user: "utensil", server: .tcp(host: "db"), database: "utensils", sslMode: .disable),
         "postgresql://utensil@db:5432/utensils?sslmode=disable"),
        ("postgresql://utensil@db/utensils?sslmode=prefer",
         PostgresURL(user: "utensil", server: .tcp(host: "db"), database: "utensils"),
         "postgresql://utensil@db:5432/utensils"),
        ("postgresql://utensil@db/utensils?sslmode=require",
         PostgresURL(user: "utensil", server: .tcp(host: "db"), database: "utensils", sslMode: .require),
         "postgresql://utensil@db:5432/utensils?sslmode=require"),
        ("postgresql://utensil@db/utensils?sslrootcert=system&sslmode=verify-full",
         PostgresURL(user: "utensil", server: .tcp(host: "db"), database: "utensils", sslMode: .verifyFull, sslRootCert: "system"),
         "postgresql://utensil@db:5432/utensils?sslmode=verify-full&sslrootcert=system"),
        ("postgresql://utensil@/utensils?host=/run/postgresql&sslmode=require",
         PostgresURL(user: "utensil", server: .unixSocket(directory: "/run/postgresql"), database: "utensils", sslMode: .require),
         "postgresql://utensil@/utensils?host=/run/postgresql&sslmode=require"),
    ])
    func sslModeIsReadAsLibpqReadsIt(text: String, url: PostgresURL, canonical: String) throws {
        let folder = try TemporaryFolder()
        let configuration = try load(flags: [.catalog: text], in: folder)
        #expect(configuration.catalog == .postgres(url))
        #expect(configuration.renderedValue(of: .catalog) == "\"\(canonical)\"")
        #expect(try load(toml: configuration.renderTOML(), in: folder) == configuration)
    }

    @Test func sslRootCertNamesAReadableFile() throws {
        let folder = try TemporaryFolder()
        let authority = try folder.write("-----BEGIN CERTIFICATE-----\n", to: "ca.crt")
        let text = "postgresql://utensil@db/utensils?sslmode=verify-ca&sslrootcert=\(authority)"
        let configuration = try load(flags: [.catalog: text], in: folder)
        #expect(configuration.catalog == .postgres(
            PostgresURL(user: "utensil", server: .tcp(host: "db"), database: "utensils", sslMode: .verifyCA, sslRootCert: authority)))
        #expect(try load(toml: configuration.renderTOML(), in: folder) == configuration)
        try FileManager.default.removeItem(atPath: authority)
        let error = try #require(try loadError(flags: [.catalog: text], in: folder))
        #expect(error.key == .catalog)
        #expect(error.description.contains("sslrootcert=\(authority), which does not exist"), "\(error)")
    }

    @Test func theSocketPathAndServerAreSaidForMessages() {
        let socket = PostgresURL(user: "u", server: .unixSocket(directory: "/run/postgresql"), database: "d")
        #expect(socket.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(socket.serverDescription == "the socket /run/postgresql/.s.PGSQL.5432")
        #expect(PostgresURL(user: "u", server: .tcp(host: "::1"), port: 1, database: "d").serverDescription == "[::1]:1")
    }

    @Test(arguments: [
        ("mysql://utensil@db/utensils", "neither \"sqlite\" nor a PostgreSQL URL"),
        ("SQLite", "neither \"sqlite\" nor a PostgreSQL URL"),
        ("postgresql://db.example.org/utensils", "names no user"),
        ("postgresql://@db.example.org/utensils", "names no user"),
        ("postgresql://utensil@db.example.org", "names no database"),
        ("postgresql://utensil@db.example.org/", "names no database"),
        ("postgresql://utensil@db.example.org:0/utensils", "a port is a number from 1 to 65535"),
        ("postgresql://utensil@db.example.org:http/utensils", "a port is a number from 1 to 65535"),
        ("postgresql://utensil@::1/utensils", "IPv6 address without brackets"),
        ("postgresql://utensil@/utensils", "names no server"),
        ("postgresql://utensil@db/utensils?host=/run/postgresql", "both a host and a socket folder"),
        ("postgresql://utensil@/utensils?host=run/postgresql", "not a socket folder"),
        ("postgresql://utensil@db/utensils?connect_timeout=5", "only host (a socket folder), port, sslmode and sslrootcert"),
        ("postgresql://utensil@db/utensils?sslmode=verify_full", "has sslmode=verify_full, which is not one of disable, prefer, require, verify-ca, verify-full"),
        ("postgresql://utensil@db/utensils?sslmode=allow", "sslmode=allow, which utensild does not offer"),
        ("postgresql://utensil@db/utensils?sslmode=require&sslmode=disable", "gives sslmode twice"),
        ("postgresql://utensil@db/utensils?sslmode=verify-full", "without sslrootcert"),
        ("postgresql://utensil@db/utensils?sslmode=verify-ca", "without sslrootcert"),
        ("postgresql://utensil@db/utensils?sslmode=verify-full&sslrootcert=ca.crt", "not an absolute path"),
        ("postgresql://utensil@db/utensils?sslmode=verify-full&sslrootcert=/nonexistent/ca.crt", "sslrootcert=/nonexistent/ca.crt, which does not exist"),
        ("postgresql://utensil@db/utensils?sslmode=verify-full&sslrootcert=/tmp", "sslrootcert=/tmp, which is not a regular file"),
        ("postgresql://utensil@db/a/b", "\"/\" in the database name"),
        ("postgresql://utensil@db/ut%ZZ", "bad %-escape"),
        ("postgresql://utensil@db/utensils#x", "fragment"),
        ("postgresql://utensil@/u?host=/" + String(repeating: "d", count: 100), "at most 107"),
    ])
    func badURLsAreRefusedNamingTheKey(text: String, problem: String) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(environment: ["UTENSILD_CATALOG": text], in: folder))
        #expect(error.key == .catalog)
        #expect(error.description.hasPrefix("catalog = "))
        #expect(error.description.contains("UTENSILD_CATALOG"))
        #expect(error.description.contains(problem), "\(error)")
    }

    @Test(arguments: [
        "postgresql://utensil:s3cret-pw@db.example.org:5432/utensils",
        "postgresql://utensil:@db.example.org/utensils",
        "postgresql://utensil@db.example.org/utensils?password=s3cret-pw",
        "postgresql://utensil@/utensils?host=/run/postgresql&PASSWORD=s3cret-pw",
    ])
    func aPasswordInTheURLIsRefusedWithoutShowingIt(text: String) throws {
        let folder = try TemporaryFolder()
        for error in [try loadError(flags: [.catalog: text], in: folder),
                      try loadError(toml: "catalog = \"\(text)\"\n", in: folder)] {
            let error = try #require(error)
            #expect(error.key == .catalog)
            #expect(error.description.contains("catalog_password_file"), "\(error)")
            #expect(!error.description.contains("s3cret"), "\(error)")
            #expect(error.description.contains("utensil"), "\(error)")
        }
    }

    @Test func thePasswordFileMustExistAndIsReadOnlyWhenAsked() throws {
        let folder = try TemporaryFolder()
        let missing = try #require(try loadError(flags: [.catalogPasswordFile: folder.file("absent")], in: folder))
        #expect(missing.key == .catalogPasswordFile)
        #expect(missing.description.contains("does not exist"))
        let notAFile = try #require(try loadError(flags: [.catalogPasswordFile: folder.path], in: folder))
        #expect(notAFile.description.contains("not a regular file"))

        let file = try folder.write("pä ss\nsecond line\n", to: "password")
        let configuration = try load(flags: [.catalogPasswordFile: file], in: folder)
        let source = configuration.catalogPasswordSource(environment: ["CREDENTIALS_DIRECTORY": folder.path])
        #expect(source == .file(path: file))
        #expect(try source.read() == "pä ss")
        #expect(!configuration.renderTOML().contains("pä ss"))
        try folder.write("\r\n", to: "password")
        #expect(throws: CatalogPasswordError.empty(source)) { try source.read() }
    }

    @Test func withoutAFileTheSystemdCredentialIsRead() throws {
        let folder = try TemporaryFolder()
        let configuration = try load(in: folder)
        #expect(configuration.catalogPasswordSource(environment: ["CREDENTIALS_DIRECTORY": folder.path]) == CatalogPasswordSource.none)
        let path = try folder.write("from-systemd\r\n", to: "catalog-password")
        let source = configuration.catalogPasswordSource(environment: ["CREDENTIALS_DIRECTORY": folder.path + "/"])
        #expect(source == .credential(path: path))
        #expect(try source.read() == "from-systemd")
        #expect(source.description.contains(path))
    }
}
