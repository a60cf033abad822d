import Foundation
import Glibc
import Testing
import UtensilTestSupport
@testable import UtensilWatch

/// Real inotify in temporary folders. Serialized: the overflow test lowers a system-wide limit
/// for the instant it creates its instance, and each test owns one inotify instance.
@Suite("InboxWatcher (inotify)", .serialized)
struct InboxWatcherTests {
    let box: Sandbox
    init() throws { box = try Sandbox() }

    func start(
        excluded: Set<FolderIdentity> = [], recheck: Duration = .milliseconds(100)
    ) throws -> (InboxWatcher, EventRecorder) {
        let watcher = try InboxWatcher(
            inbox: bytes(box.inbox), skipFolder: skipRule, excluded: excluded, inboxRecheckInterval: recheck)
        return (watcher, EventRecorder(watcher.events()))
    }

    // MARK: Files

    @Test func copiedFileIsACandidate() async throws {
        let (watcher, events) = try start()
        defer { watcher.stop() }
        writeFile(box.inbox + "/spoon.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/spoon.jpg"))))
    }

    @Test func fileMovedInFromElsewhereIsACandidate() async throws {
        writeFile(box.outside + "/fork.png")
        let (watcher, events) = try start()
        defer { watcher.stop() }
        rename(box.outside + "/fork.png", box.inbox + "/fork.png")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/fork.png"))))
    }

    @Test func rsyncStyleTempFileRenamedIsACandidateForTheFinalName() async throws {
        let (watcher, events) = try start()
        defer { watcher.stop() }
        writeFile(box.inbox + "/.knife.jpg.Xa12b")
        rename(box.inbox + "/.knife.jpg.Xa12b", box.inbox + "/knife.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/knife.jpg"))))
    }

    @Test func nonUTF8NamesArriveAsTheirBytes() async throws {
        let (watcher, events) = try start()
        defer { watcher.stop() }
        let path = bytes(box.inbox + "/") + [0x66, 0xFF, 0xFE, 0x2E, 0x6A, 0x70, 0x67]
        writeFile(path)
        #expect(await events.wait(for: .candidate(path: path)))
    }

    @Test func hardLinksAndFIFOsAreCandidatesThoughNeverClosed() async throws {
        writeFile(box.outside + "/ladle.jpg")
        let (watcher, events) = try start()
        defer { watcher.stop() }
        #expect(link(box.outside + "/ladle.jpg", box.inbox + "/ladle.jpg") == 0)
        #expect(mkfifo(box.inbox + "/pipe.jpg", 0o644) == 0)
        let wanted: Set<WatchEvent> = [
            .candidate(path: bytes(box.inbox + "/ladle.jpg")), .candidate(path: bytes(box.inbox + "/pipe.jpg")),
        ]
        #expect(await events.wait { wanted.isSubset(of: Set($0)) })
    }

    // MARK: Folders

    @Test func nestedFoldersMadeQuicklyLoseNothing() async throws {
        let (watcher, events) = try start()
        defer { watcher.stop() }
        try box.mkdir(box.inbox + "/a/b/c")
        var expected = Set<[UInt8]>()
        for folder in ["/a", "/a/b", "/a/b/c"] {
            for index in 0..<5 {
                let path = box.inbox + folder + "/p\(index).jpg"
                writeFile(path)
                expected.insert(bytes(path))
            }
        }
        let all = expected
        #expect(await events.wait { all.isSubset(of: filesFound(in: $0)) })
        #expect(events.events.contains(.folderAppeared(path: bytes(box.inbox + "/a"))))
    }

    @Test func folderOfPhotosMovedInAtOnceIsFoundByItsScan() async throws {
        try box.mkdir(box.outside + "/album/day 2")
        var expected = Set<[UInt8]>()
        for index in 0..<20 {
            let path = index < 10 ? "/album/img\(index).jpg" : "/album/day 2/img\(index).png"
            writeFile(box.outside + path)
            expected.insert(bytes(box.inbox + path))
        }
        let (watcher, events) = try start()
        defer { watcher.stop() }
        rename(box.outside + "/album", box.inbox + "/album")
        #expect(await events.wait(for: .folderAppeared(path: bytes(box.inbox + "/album"))))
        #expect(expected.isSubset(of: filesFound(in: events.events)))
        // The moved-in sub-folder is watched too.
        writeFile(box.inbox + "/album/day 2/late.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/album/day 2/late.jpg"))))
    }

    @Test func renamedFolderIsWatchedUnderItsNewPathAndMovedOutOneIsDropped() async throws {
        try box.mkdir(box.inbox + "/old/sub")
        let (watcher, events) = try start()
        defer { watcher.stop() }
        rename(box.inbox + "/old", box.inbox + "/new")
        #expect(await events.wait(for: .folderAppeared(path: bytes(box.inbox + "/new"))))
        writeFile(box.inbox + "/new/sub/x.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/new/sub/x.jpg"))))

        rename(box.inbox + "/new", box.outside + "/gone")
        writeFile(box.outside + "/gone/sub/y.jpg")
        writeFile(box.inbox + "/marker.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/marker.jpg"))))
        #expect(!events.events.contains { $0.path.map { String(decoding: $0, as: UTF8.self).hasSuffix("y.jpg") } ?? false })
        #expect(!events.events.contains(.candidate(path: bytes(box.inbox + "/old/sub/x.jpg"))))
    }

    @Test func skippedExcludedAndSymlinkedFoldersAreNotWatched() async throws {
        try box.mkdir(box.inbox + "/@eaDir")
        try box.mkdir(box.inbox + "/rejected")
        try box.mkdir(box.outside + "/real")
        #expect(symlink(box.outside + "/real", box.inbox + "/link") == 0)
        let rejected = try #require(FolderIdentity(folderAt: bytes(box.inbox + "/rejected")))
        let (watcher, events) = try start(excluded: [rejected])
        defer { watcher.stop() }
        try box.mkdir(box.inbox + "/.hidden")  // created while watching, skipped by name
        writeFile(box.inbox + "/@eaDir/thumb.jpg")
        writeFile(box.inbox + "/rejected/bad.jpg")
        writeFile(box.inbox + "/.hidden/secret.jpg")
        writeFile(box.outside + "/real/far.jpg")
        writeFile(box.inbox + "/normal.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/normal.jpg"))))
        // Events arrive in order, so anything from the folders above would have come first.
        #expect(events.events.allSatisfy { $0 == .candidate(path: bytes(box.inbox + "/normal.jpg")) })
    }

    @Test func foldersDeeperThan32LevelsOrPathMaxAreWatched() async throws {
        // 40 levels (more than the old limit of 32), and 25 levels of 200-byte names (5 KB).
        let deep = try DeepChain.make(in: box.inbox, levels: 40, component: "d")
        try box.mkdir(box.inbox + "/Long")
        let name = String(repeating: "l", count: 200)
        let long = try DeepChain.make(in: box.inbox + "/Long", levels: 25, component: name)
        let (watcher, events) = try start()
        defer { watcher.stop() }
        deep.writeFile("deep.jpg")
        long.writeFile("long.jpg")
        #expect(await events.wait(for: .candidate(path: deep.bottom + bytes("/deep.jpg"))))
        #expect(await events.wait(for: .candidate(path: long.bottom + bytes("/long.jpg"))))
        // Folders made below them later are watched as they come.
        let longer = try DeepChain.make(in: box.inbox + "/Long", levels: 27, component: name)
        let level26 = long.bottom + bytes("/" + name)
        #expect(await events.wait(for: .folderAppeared(path: level26)))
        longer.writeFile("longer.jpg")
        #expect(await events.wait(for: .candidate(path: longer.bottom + bytes("/longer.jpg"))))
        #expect(!events.events.contains { if case .unwatched = $0 { true } else { false } })
        #expect(watcher.lastError == nil)
    }

    // MARK: Overflow

    @Test func kernelQueueOverflowIsReportedAndWatchingGoesOn() async throws {
        let original = try InotifyQueueLimit.current()
        let watcher = try InotifyQueueLimit.whileLowered(to: 16) {
            try InboxWatcher(inbox: bytes(box.inbox), skipFolder: skipRule)
        }
        defer { watcher.stop() }
        #expect(try InotifyQueueLimit.current() == original)
        // The thread starts reading only with events(): the burst fills the queue first.
        // Each file makes at least two events (create, close).
        for index in 0..<40 { writeFile(box.inbox + "/burst\(index).jpg") }
        let events = EventRecorder(watcher.events())
        #expect(await events.wait(for: .overflow))
        writeFile(box.inbox + "/after.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/after.jpg"))))
    }

    @Test func folderCreatedDuringAnOverflowIsWatchedAfterIt() async throws {
        let watcher = try InotifyQueueLimit.whileLowered(to: 16) {
            try InboxWatcher(inbox: bytes(box.inbox), skipFolder: skipRule)
        }
        defer { watcher.stop() }
        for index in 0..<40 { writeFile(box.inbox + "/burst\(index).jpg") }
        try box.mkdir(box.inbox + "/lost/inner")  // its IN_CREATE is dropped by the full queue
        let events = EventRecorder(watcher.events())
        #expect(await events.wait(for: .overflow))
        writeFile(box.inbox + "/lost/inner/found.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/lost/inner/found.jpg"))))
    }
}
