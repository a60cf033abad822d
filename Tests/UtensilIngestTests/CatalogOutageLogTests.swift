import Foundation
import Logging
import Testing
import UtensilCore
@testable import UtensilIngest
import UtensilStorage
import UtensilStore
import UtensilTestSupport

/// The journal says once that the catalog is unavailable and once that it answers again; a
/// try that was still waiting for the catalog when it came back is no new outage, and an
/// answer to a try begun before the outage was noticed does not end it.
@Suite("Catalog outage in the journal")
struct CatalogOutageLogTests {
    @Test func aTryThatBeganBeforeTheCatalogAnsweredStartsNoNewOutage() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let lines = RecordedLines()
        let engine = try world.engine(logger: Logger(label: "test") { _ in RecordingHandler(lines: lines) })
        let file = world.inbox.appendingPathComponent("Whisk.jpg")
        try Data("photo".utf8).write(to: file)
        let path = RawPath(file.path)
        let drop = Drop(path: path, inboxPath: Array("Whisk.jpg".utf8), status: try FileOps.lstat(path))
        let unavailable = IngestOutcome.retryLater(TransientFailure(.catalogUnavailable, "the catalog is unavailable"))
        func count(_ text: String) -> Int { lines.messages.filter { $0.contains(text) }.count }

        engine.log(unavailable, drop: drop, duration: .milliseconds(10))
        engine.log(unavailable, drop: drop, duration: .milliseconds(10))
        #expect(count("The catalog is unavailable") == 1)
        engine.answered(.catalog)
        engine.answered(.catalog)
        #expect(count("The catalog answers again") == 1)
        // Began 11 s ago, before the catalog answered: waited through the end of the outage.
        engine.log(unavailable, drop: drop, duration: .seconds(11))
        #expect(count("The catalog is unavailable") == 1)
        // A try begun after it answered: a new outage.
        engine.log(unavailable, drop: drop, duration: .zero)
        #expect(count("The catalog is unavailable") == 2)
        // Answered, but begun before this outage was noticed (a connection the stopping server
        // had not closed yet): the outage goes on.
        engine.answered(.catalog, triedAt: Date() - 5)
        #expect(count("The catalog answers again") == 1)
        // Answered a try begun since: it is over.
        engine.answered(.catalog)
        #expect(count("The catalog answers again") == 2)
    }
}
