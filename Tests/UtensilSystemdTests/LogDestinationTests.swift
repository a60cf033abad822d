import Foundation
import Logging
import Testing
import UtensilSystemd

/// Each test names the journal socket it means, so none depends on whether a journald runs.
@Suite struct LogDestinationTests {
    /// `<device>:<inode>` of this process's stderr as `stat(1)` sees it (not through the code under test).
    static func stderrIdentity() async throws -> String {
        let result = try await ChildProcess.run("/usr/bin/stat", ["-L", "-c", "%d:%i", "/proc/\(getpid())/fd/2"])
        try #require(result.status == 0, "\(result.transcript)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func stderrIsAJournalStreamWhenJournalStreamNamesIt() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let environment = ["JOURNAL_STREAM": try await Self.stderrIdentity()]
        #expect(LogDestination.stderrIsJournalStream(environment: environment))
        #expect(LogDestination.journalIsAvailable(environment: environment, socketPath: folder.appending("none")))
        // Without the native socket the stream itself carries plain lines, priority first.
        #expect(LogDestination.detect(socketPath: folder.appending("none")) == .standardError)
        let handler = LogDestination.standardError.handlerFactory(environment: environment)("label")
        #expect((handler as? PlainStderrLogHandler)?.style == .journalStream)
    }

    @Test func aJournalStreamOfAnotherFileDoesNotCount() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let parts = try await Self.stderrIdentity().split(separator: ":")
        let otherInode = "\(parts[0]):\(try #require(UInt64(parts[1])) + 1)"
        for value in [otherInode, "", "0:0", "1:2:3", "abc:def", " \(parts[0]):\(parts[1])"] {
            let environment = ["JOURNAL_STREAM": value]
            #expect(!LogDestination.stderrIsJournalStream(environment: environment), "\(value)")
            #expect(
                !LogDestination.journalIsAvailable(environment: environment, socketPath: folder.appending("none")),
                "\(value)")
        }
        #expect(LogDestination.detect(socketPath: folder.appending("none")) == .standardError)
    }

    @Test func theJournalSocketMustBeASocket() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.appending("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        #expect(!LogDestination.journalIsAvailable(environment: [:], socketPath: file))
        #expect(!LogDestination.journalIsAvailable(environment: [:], socketPath: folder.path))

        let socket = try DatagramSocket(boundTo: folder.appending("socket"))
        #expect(LogDestination.journalIsAvailable(environment: [:], socketPath: socket.path))
        #expect(LogDestination.detect(socketPath: socket.path) == .journal)
    }

    @Test func factoriesMakeTheDestinationsHandler() throws {
        let journal = LogDestination.journal.handlerFactory(identifier: "x", logLevel: .debug, environment: [:])("label")
        let journald = try #require(journal as? JournaldLogHandler)
        #expect(journald.identifier == "x")
        #expect(journald.logLevel == .debug)

        let terminal = LogDestination.standardError.handlerFactory(logLevel: .warning, environment: [:])("label")
        let plain = try #require(terminal as? PlainStderrLogHandler)
        #expect(plain.style == .timestamped)
        #expect(plain.logLevel == .warning)
    }
}
