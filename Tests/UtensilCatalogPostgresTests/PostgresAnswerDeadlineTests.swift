import Foundation
import Glibc
import Logging
import PostgresNIO
import Synchronization
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilTestSupport

/// A catalog call on a connection the server never answers ends, as an outage, once its
/// answer deadline has passed (``PostgresCatalog/answerSeconds``), rather than waiting for
/// ever with the drop it ingests (seen after PostgreSQL's restart under a burst of drops: a
/// commit never returned, its drops stayed in flight for good).
///
/// The hung server is a loopback listener that lets every connection in (the start-up
/// handshake, no password asked) and then reads without ever answering: a fault a real
/// PostgreSQL cannot be made to show on demand.
@Suite struct PostgresAnswerDeadlineTests {
    @Test func aCallTheServerNeverAnswersIsUnavailableOnceItsDeadlinePasses() async throws {
        let server = try SilentPostgres()
        defer { server.stop() }
        let outcome = try await Self.countOnce(server, answerSeconds: 1)
        switch outcome {
        case .failure(.unavailable(_, let detail)):
            #expect(detail.contains("did not answer within 1 seconds"), "\(detail)")
        case let other:
            Issue.record("expected the catalog to be unavailable, got \(other)")
        }
    }

    /// A caller cancelled while its call waits for an answer (a shutdown past its bound) is
    /// answered at once, not when the answer deadline passes.
    @Test func aCancelledCallerIsAnsweredAtOnce() async throws {
        let server = try SilentPostgres()
        defer { server.stop() }
        let outcome = try await Self.countOnce(server, answerSeconds: 600, cancelOnceSent: true)
        guard case .failure = outcome else {
            Issue.record("expected the cancelled call to fail, got \(outcome)")
            return
        }
    }

    /// `count()` on a catalog over `server`, ended within 30 s (else the test fails rather than
    /// hang); with `cancelOnceSent`, its task is cancelled once the server has its statement.
    private static func countOnce(
        _ server: SilentPostgres, answerSeconds: Int64, cancelOnceSent: Bool = false
    ) async throws -> Result<Int, CatalogError> {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: server.port, username: "utensil", password: "unused", database: "utensils", tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        let logger = Logger(label: "answer-deadline-test")
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let running = Task { await client.run() }
        defer { running.cancel() }
        let catalog = PostgresCatalog(client: client, snapshotWriter: SQLiteSnapshotWriter(), logger: logger, answerSeconds: answerSeconds)

        // Watched from here: without the deadline the call never returns, and the test fails
        // on its own time-out instead of hanging.
        let outcome = Mutex<Result<Int, CatalogError>?>(nil)
        let call = Task {
            let result: Result<Int, CatalogError>
            do throws(CatalogError) { result = .success(try await catalog.count()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        defer { call.cancel() }
        if cancelOnceSent {
            try await Poll.eventually(seconds: 30, "the statement to reach the silent server", every: .milliseconds(20)) {
                server.statementsReceived > 0
            }
            call.cancel()
        }
        try await Poll.eventually(seconds: 30, "the call to the silent server to end", every: .milliseconds(50)) {
            outcome.withLock { $0 != nil }
        }
        #expect(server.statementsReceived > 0, "the call held a connection and sent its statement")
        return try #require(outcome.withLock { $0 })
    }
}

/// A PostgreSQL that lets every client in and then never answers: it refuses TLS, answers the
/// start-up message with AuthenticationOk and ReadyForQuery, and from then on only reads.
final class SilentPostgres: Sendable {
    let port: Int
    private let listener: Int32
    private let state = Mutex<(connections: [Int32], statements: Int, stopped: Bool)>(([], 0, false))

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw TestFailure("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptUntilStopped() }.start()
    }

    /// Statements (simple or extended query messages) received and never answered.
    var statementsReceived: Int { state.withLock { $0.statements } }

    /// Closes the listener and every connection.
    func stop() {
        let connections = state.withLock { state in
            state.stopped = true
            return state.connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private func acceptUntilStopped() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let stopped = state.withLock { state in
                state.connections.append(connection)
                return state.stopped
            }
            if stopped { shutdown(connection, Int32(SHUT_RDWR)) }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        // The start-up message (after an SSLRequest, refused with "N").
        guard var startup = readMessage(connection, typed: false) else { return }
        if startup.count == 4, startup == [0x04, 0xD2, 0x16, 0x2F] {
            guard write(connection, [UInt8(ascii: "N")]) else { return }
            guard let next = readMessage(connection, typed: false) else { return }
            startup = next
        }
        let authenticationOk: [UInt8] = [UInt8(ascii: "R"), 0, 0, 0, 8, 0, 0, 0, 0]
        let backendKey: [UInt8] = [UInt8(ascii: "K"), 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 2]
        let readyForQuery: [UInt8] = [UInt8(ascii: "Z"), 0, 0, 0, 5, UInt8(ascii: "I")]
        guard write(connection, authenticationOk + backendKey + readyForQuery) else { return }
        // From here on: read, count, never answer.
        while let message = readMessage(connection, typed: true) {
            if let kind = message.first, [UInt8(ascii: "Q"), UInt8(ascii: "P")].contains(kind) {
                state.withLock { $0.statements += 1 }
            }
        }
    }

    /// One message's bytes after its length (with its type byte first when `typed`), or nil at the end.
    private func readMessage(_ connection: Int32, typed: Bool) -> [UInt8]? {
        guard let kind = typed ? readExactly(connection, 1) : [], let header = readExactly(connection, 4) else { return nil }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length >= 4, let body = readExactly(connection, length - 4) else { return nil }
        return kind + body
    }

    private func readExactly(_ connection: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { read(connection, $0.baseAddress! + done, count - done) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }

    private func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.write(connection, $0.baseAddress!, bytes.count) == bytes.count }
    }
}
