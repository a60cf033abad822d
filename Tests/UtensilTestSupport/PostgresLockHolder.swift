import Foundation

extension PostgresServer {
    /// A psql session (another process) holding a transaction-scoped advisory lock until
    /// ``PostgresLockHolder/release()``: stands for another host in the middle of work under that lock.
    public func holdAdvisoryLock(_ key: Int64, database: String) throws -> PostgresLockHolder {
        try PostgresLockHolder(server: self, key: key, database: database)
    }
}

/// See ``PostgresServer/holdAdvisoryLock(_:database:)``.
public final class PostgresLockHolder {
    private let process = Process()
    private let input = Pipe()
    private var released = false

    init(server: PostgresServer, key: Int64, database: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: PostgresServer.binaries + "/psql")
        process.arguments = ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", server.socketDirectory,
                             "-p", String(server.port), "-U", "postgres", "-d", database]
        process.environment = ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN;\nSELECT pg_advisory_xact_lock(\(key));\nSELECT 'locked';\n".utf8))
        var seen = ""
        while !seen.contains("locked") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw TestFailure("psql ended before taking the advisory lock: \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
        }
    }

    /// Ends the transaction (so the lock is released) and the session.
    public func release() {
        guard !released else { return }
        released = true
        input.fileHandleForWriting.write(Data("COMMIT;\n\\q\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { release() }
}
