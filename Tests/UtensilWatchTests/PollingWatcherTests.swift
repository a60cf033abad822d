import Foundation
import Glibc
import Testing
@testable import UtensilWatch

@Suite("PollingWatcher")
struct PollingWatcherTests {
    let box: Sandbox
    init() throws { box = try Sandbox() }

    func start() throws -> (PollingWatcher, EventRecorder) {
        let watcher = try PollingWatcher(
            inbox: bytes(box.inbox), skipFolder: skipRule, interval: .milliseconds(30))
        return (watcher, EventRecorder(watcher.events()))
    }

    @Test func newFileIsACandidateButFilesAlreadyThereAreNot() async throws {
        writeFile(box.inbox + "/before.jpg")
        let (watcher, events) = try start()
        defer { watcher.stop() }
        try box.mkdir(box.inbox + "/new folder")
        writeFile(box.inbox + "/new folder/after.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/new folder/after.jpg"))))
        #expect(!events.events.contains(.candidate(path: bytes(box.inbox + "/before.jpg"))))
    }

    @Test func changedFileIsACandidateAgain() async throws {
        let path = box.inbox + "/growing.jpg"
        let (watcher, events) = try start()
        defer { watcher.stop() }
        writeFile(path, "part")
        #expect(await events.wait(for: .candidate(path: bytes(path))))
        writeFile(path, "part and the rest")
        #expect(await events.wait { $0.filter { $0 == .candidate(path: bytes(path)) }.count == 2 })
    }

    @Test func foldersDeeperThan32LevelsOrPathMaxAreListed() async throws {
        let deep = try DeepChain.make(in: box.inbox, levels: 40, component: "d")
        try box.mkdir(box.inbox + "/Long")
        let long = try DeepChain.make(in: box.inbox + "/Long", levels: 25, component: String(repeating: "l", count: 200))
        let (watcher, events) = try start()
        defer { watcher.stop() }
        deep.writeFile("deep.jpg")
        long.writeFile("long.jpg")
        #expect(await events.wait(for: .candidate(path: deep.bottom + bytes("/deep.jpg"))))
        #expect(await events.wait(for: .candidate(path: long.bottom + bytes("/long.jpg"))))
        #expect(!events.events.contains { if case .unwatched = $0 { true } else { false } })
    }

    @Test func skippedFoldersAreNotListed() async throws {
        try box.mkdir(box.inbox + "/@eaDir")
        let (watcher, events) = try start()
        defer { watcher.stop() }
        writeFile(box.inbox + "/@eaDir/thumb.jpg")
        writeFile(box.inbox + "/fine.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/fine.jpg"))))
        // One listing sees both files or neither: give it one more pass to be sure.
        writeFile(box.inbox + "/fine2.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/fine2.jpg"))))
        #expect(!events.events.contains(.candidate(path: bytes(box.inbox + "/@eaDir/thumb.jpg"))))
    }

    @Test func removedInboxIsGoneThenBack() async throws {
        let (watcher, events) = try start()
        defer { watcher.stop() }
        try FileManager.default.removeItem(atPath: box.inbox)
        #expect(await events.wait(for: .inboxGone))
        try box.mkdir(box.inbox)
        #expect(await events.wait(for: .inboxBack))
        writeFile(box.inbox + "/again.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/again.jpg"))))
        #expect(events.events.filter { $0 == .inboxGone }.count == 1)
    }

    @Test func stopEndsTheStream() async throws {
        let (watcher, events) = try start()
        watcher.stop()
        #expect(await events.waitForEnd(upTo: .seconds(10)))
        #expect(await within(.seconds(10)) { await watcher.waitForThreadExit() } != nil)
    }

    @Test func missingInboxIsATypedError() {
        #expect(throws: WatchError.inboxMissing(path: bytes(box.root + "/nope"))) {
            try PollingWatcher(inbox: bytes(box.root + "/nope"), skipFolder: skipRule, interval: .seconds(1))
        }
    }
}
