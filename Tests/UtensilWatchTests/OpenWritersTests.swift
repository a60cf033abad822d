import Foundation
import Glibc
import Testing
import UtensilTestSupport
@testable import UtensilWatch

/// Which files a writer still holds open, from the events alone, and then from real inotify.
@Suite("Open writers")
struct WriterTrackerTests {
    let spoon = bytes("Spoon.jpg")

    func replay(_ masks: [Int32], on tracker: inout WriterTracker) -> [Bool] {
        masks.map { tracker.note(UInt32(bitPattern: $0), path: spoon) }
    }

    @Test func aCopyIsHeldFromItsCreationUntilItsClose() {
        var tracker = WriterTracker()
        _ = replay([IN_CREATE, IN_OPEN], on: &tracker)
        #expect(tracker.holdsOpen(spoon))
        _ = replay([IN_MODIFY, IN_MODIFY], on: &tracker)
        #expect(tracker.holdsOpen(spoon))
        #expect(replay([IN_CLOSE_WRITE], on: &tracker) == [true])
        #expect(!tracker.holdsOpen(spoon) && tracker.states.isEmpty)
    }

    @Test func aHardLinkFIFOOrSymlinkIsNeverHeld() {
        var tracker = WriterTracker()
        _ = replay([IN_CREATE], on: &tracker)
        #expect(!tracker.holdsOpen(spoon))
        // A reader (utensild itself, a file manager) opens and closes it: not a writer.
        #expect(replay([IN_OPEN, IN_CLOSE_NOWRITE], on: &tracker) == [false, true])
        #expect(!tracker.holdsOpen(spoon) && tracker.states.isEmpty)
    }

    @Test func aRewriteOfAnOldFileIsHeldAndAReaderDoesNotEndIt() {
        var tracker = WriterTracker()
        _ = replay([IN_OPEN, IN_MODIFY, IN_OPEN, IN_CLOSE_NOWRITE], on: &tracker)
        #expect(tracker.holdsOpen(spoon))
        #expect(replay([IN_CLOSE_WRITE], on: &tracker) == [true])
        #expect(!tracker.holdsOpen(spoon))
    }

    @Test func aFileRenamedInIsComplete() {
        var tracker = WriterTracker()
        _ = replay([IN_MODIFY], on: &tracker)
        #expect(replay([IN_MOVED_TO], on: &tracker) == [true])
        #expect(!tracker.holdsOpen(spoon))
    }

    @Test func movedAwayDeletedOrForgottenFilesAreNotKept() {
        var tracker = WriterTracker()
        for (index, mask) in [IN_MOVED_FROM, IN_DELETE].enumerated() {
            let path = bytes("Album/\(index).jpg")
            _ = tracker.note(UInt32(bitPattern: IN_MODIFY), path: path)
            _ = tracker.note(UInt32(bitPattern: mask), path: path)
        }
        _ = tracker.note(UInt32(bitPattern: IN_MODIFY), path: bytes("Album/2.jpg"))
        _ = tracker.note(UInt32(bitPattern: IN_MODIFY), path: bytes("Albums/3.jpg"))
        tracker.forget(under: bytes("Album"))
        #expect(tracker.states.keys.map { String(decoding: $0, as: UTF8.self) } == ["Albums/3.jpg"])
    }

    @Test func theTableIsBounded() {
        var tracker = WriterTracker()
        for index in 0...WriterTracker.capacity {
            _ = tracker.note(UInt32(bitPattern: IN_MODIFY), path: bytes("\(index).jpg"))
        }
        #expect(tracker.states.count == WriterTracker.capacity)
        #expect(!tracker.holdsOpen(bytes("\(WriterTracker.capacity).jpg")))
    }
}

/// The same with real inotify: a test holding a descriptor is the writer.
@Suite("Open writers (inotify)", .serialized)
struct OpenWritersInotifyTests {
    let box: Sandbox
    init() throws { box = try Sandbox() }

    @Test func aWriterHoldingItsFileIsSeenUntilItClosesIt() async throws {
        let writers = OpenWriters()
        let watcher = try InboxWatcher(inbox: bytes(box.inbox), skipFolder: skipRule, writers: writers)
        defer { watcher.stop() }
        let events = EventRecorder(watcher.events())
        try box.mkdir(box.inbox + "/Album")
        #expect(await events.wait(for: .folderAppeared(path: bytes(box.inbox + "/Album"))))

        let path = box.inbox + "/Album/spoon.jpg"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        #expect(write(fd, "half a photo", 12) == 12)
        #expect(await events.wait(for: .candidate(path: bytes(path))))
        #expect(await Self.eventually { writers.holdsOpen(bytes("Album/spoon.jpg")) })

        let count = events.events.count
        #expect(close(fd) == 0)
        #expect(await events.wait { $0.dropFirst(count).contains(.candidate(path: bytes(path))) })
        #expect(!writers.holdsOpen(bytes("Album/spoon.jpg")))
    }

    @Test func aHardLinkReadByAnotherProcessIsNeverHeld() async throws {
        writeFile(box.outside + "/ladle.jpg")
        let writers = OpenWriters()
        let watcher = try InboxWatcher(inbox: bytes(box.inbox), skipFolder: skipRule, writers: writers)
        defer { watcher.stop() }
        let events = EventRecorder(watcher.events())
        #expect(link(box.outside + "/ladle.jpg", box.inbox + "/ladle.jpg") == 0)
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/ladle.jpg"))))
        let fd = open(box.inbox + "/ladle.jpg", O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        close(fd)
        writeFile(box.inbox + "/marker.jpg")  // Events arrive in order: once this is seen, so was the close.
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/marker.jpg"))))
        #expect(await Self.eventually { !writers.holdsOpen(bytes("marker.jpg")) })
        #expect(!writers.holdsOpen(bytes("ladle.jpg")))
    }

    @Test func anOverflowForgetsEveryHold() async throws {
        let writers = OpenWriters()
        // The limit is read when the instance is made: other tests keep the usual one.
        let watcher = try InotifyQueueLimit.whileLowered(to: 16) {
            try InboxWatcher(inbox: bytes(box.inbox), skipFolder: skipRule, writers: writers)
        }
        defer { watcher.stop() }
        // A writer holds its file, then a burst fills the queue before the thread reads it.
        let fd = open(box.inbox + "/held.jpg", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(write(fd, "half", 4) == 4)
        for index in 0..<40 { writeFile(box.inbox + "/burst\(index).jpg") }
        let events = EventRecorder(watcher.events())
        #expect(await events.wait(for: .overflow))
        // What writers did while events were lost is unknown: settle alone decides.
        #expect(!writers.holdsOpen(bytes("held.jpg")))
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
