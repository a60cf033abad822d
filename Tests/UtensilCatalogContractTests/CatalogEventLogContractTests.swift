import Foundation
import Synchronization
import Testing
import UtensilCatalogModel

/// The rules of ``CatalogEventLog`` (the numbered events behind `events --since` and a
/// gallery's `Last-Event-ID`), checked against every backend in ``CatalogBackends/all``.
@Suite("Catalog event log contract", .tags(.spawnsProcesses))
struct CatalogEventLogContractTests {
    @Test("appended events get growing seqs and are read back after any seq", arguments: CatalogBackends.all)
    func appendAndReadBack(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let log = opened.backend
            #expect(try await log.eventRange() == nil)
            #expect(try await log.events(after: 0, limit: 10).isEmpty)
            let first = try await log.appendEvents(["a", "b", "c"], host: "kitchen-a")
            let second = try await log.appendEvents(["d"], host: "kitchen-b")
            #expect(first.count == 3 && second.count == 1)
            let seqs = first + second
            #expect(seqs == seqs.sorted() && Set(seqs).count == 4, "\(seqs)")
            let all = try await log.events(after: 0, limit: 10)
            #expect(all.map(\.payload) == ["a", "b", "c", "d"])
            #expect(all.map(\.seq) == seqs)
            #expect(all.map(\.host) == ["kitchen-a", "kitchen-a", "kitchen-a", "kitchen-b"])
            #expect(try await log.events(after: seqs[1], limit: 1).map(\.payload) == ["c"])
            #expect(try await log.events(after: seqs[3], limit: 10).isEmpty)
            #expect(try await log.eventRange() == seqs[0]...seqs[3])
            #expect(try await log.appendEvents([], host: "kitchen-a").isEmpty)
        }
    }

    @Test("pruning keeps the newest events, and a seq is never used again", arguments: CatalogBackends.all)
    func pruningKeepsTheNewest(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            let log = opened.backend
            let seqs = try await log.appendEvents((1...6).map { "event \($0)" }, host: "kitchen-a")
            try await log.pruneEvents(keeping: 2)
            #expect(try await log.events(after: 0, limit: 10).map(\.payload) == ["event 5", "event 6"])
            #expect(try await log.eventRange() == seqs[4]...seqs[5])
            try await log.pruneEvents(keeping: 0)
            #expect(try await log.eventRange() == nil)
            let next = try await log.appendEvents(["event 7"], host: "kitchen-a")
            #expect(next[0] > seqs[5], "a seq was used again: \(next) after \(seqs)")
        }
    }

    /// Hosts appending at once while a reader follows "after the last seq I saw": the reader
    /// sees every event exactly once (no event commits under a seq it has passed already).
    @Test("a reader following by seq misses nothing while hosts append at once", arguments: CatalogBackends.all)
    func followingBySeqMissesNothing(_ backend: BackendUnderTest) async throws {
        try await backend.check { (opened: OpenedCatalog) async throws in
            var handles: [any CatalogBackend] = [opened.backend]
            for _ in 1..<3 { handles.append(try await opened.another()) }
            let writers = handles
            let reader = try await opened.another()
            let perWriter = 40
            let done = Finished()
            let seen = try await withThrowingTaskGroup(of: [String].self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask {
                        for event in 0..<perWriter {
                            _ = try await writer.appendEvents(["\(index)-\(event)"], host: "kitchen-\(index)")
                        }
                        done.count.add(1, ordering: .sequentiallyConsistent)
                        return []
                    }
                }
                group.addTask {
                    var after: Int64 = 0
                    var payloads: [String] = []
                    while true {
                        let finished = done.count.load(ordering: .sequentiallyConsistent) == writers.count
                        let page = try await reader.events(after: after, limit: 7)
                        payloads += page.map(\.payload)
                        after = page.last?.seq ?? after
                        if finished && page.isEmpty { return payloads }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(seen.count == writers.count * perWriter, "\(seen.count) events read")
            #expect(Set(seen).count == seen.count)
        }
    }
}

/// How many writers have finished, shared with the tasks that count.
private final class Finished: Sendable {
    let count = Atomic<Int>(0)
}
