import Foundation
import Glibc
import Testing
@testable import UtensilWatch

extension InboxWatcherTests {
    // MARK: The inbox going and coming back

    @Test func deletedInboxIsGoneThenBackThenWatched() async throws {
        writeFile(box.inbox + "/old.jpg")
        try box.mkdir(box.inbox + "/sub")
        let (watcher, events) = try start()
        defer { watcher.stop() }
        try FileManager.default.removeItem(atPath: box.inbox)
        #expect(await events.wait(for: .inboxGone))
        try box.mkdir(box.inbox)
        #expect(await events.wait(for: .inboxBack))
        writeFile(box.inbox + "/new.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/new.jpg"))))
        #expect(events.events.filter { $0 == .inboxGone }.count == 1)
    }

    @Test func inboxMovedAwayIsGoneAndItsOldTreeIsNoLongerWatched() async throws {
        try box.mkdir(box.inbox + "/sub")
        let (watcher, events) = try start(recheck: .seconds(30))
        defer { watcher.stop() }
        rename(box.inbox, box.outside + "/moved")
        #expect(await events.wait(for: .inboxGone))
        writeFile(box.outside + "/moved/sub/stray.jpg")
        writeFile(box.outside + "/moved/stray.jpg")
        try box.mkdir(box.inbox)
        // With a 30 s recheck nothing more may arrive now; stop and look at everything.
        watcher.stop()
        #expect(await events.waitForEnd())
        #expect(events.events == [.inboxGone])
    }

    @Test(.enabled(if: isRoot, "needs root to mount"))
    func unmountedInboxIsGoneThenBack() async throws {
        guard mount("utensiltest", box.inbox, "tmpfs", 0, "size=1m") == 0 else { return }
        var mounted = true
        defer { if mounted { umount2(box.inbox, Int32(MNT_DETACH)) } }
        let (watcher, events) = try start()
        defer { watcher.stop() }
        writeFile(box.inbox + "/on-tmpfs.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/on-tmpfs.jpg"))))
        #expect(umount2(box.inbox, 0) == 0)
        mounted = false
        #expect(await events.wait(for: .inboxGone))
        #expect(await events.wait(for: .inboxBack))  // the mount point folder underneath
    }

    @Test(.enabled(if: isRoot, "needs root to mount"))
    func unmountBelowTheInboxRewatchesTheFolderUnderneath() async throws {
        try box.mkdir(box.inbox + "/share")
        guard mount("utensiltest", box.inbox + "/share", "tmpfs", 0, "size=1m") == 0 else { return }
        var mounted = true
        defer { if mounted { umount2(box.inbox + "/share", Int32(MNT_DETACH)) } }
        let (watcher, events) = try start()
        defer { watcher.stop() }
        writeFile(box.inbox + "/share/mounted.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/share/mounted.jpg"))))
        #expect(umount2(box.inbox + "/share", 0) == 0)
        mounted = false
        #expect(await events.wait(for: .folderAppeared(path: bytes(box.inbox + "/share"))))
        writeFile(box.inbox + "/share/underneath.jpg")
        #expect(await events.wait(for: .candidate(path: bytes(box.inbox + "/share/underneath.jpg"))))
        #expect(!events.events.contains(.inboxGone))
    }

    @Test func missingInboxIsATypedError() {
        #expect(throws: WatchError.inboxMissing(path: bytes(box.root + "/nope"))) {
            try InboxWatcher(inbox: bytes(box.root + "/nope"), skipFolder: skipRule)
        }
        writeFile(box.root + "/file")
        #expect(throws: WatchError.inboxNotAFolder(path: bytes(box.root + "/file"))) {
            try InboxWatcher(inbox: bytes(box.root + "/file"), skipFolder: skipRule)
        }
    }

    // MARK: Stopping

    @Test func stopEndsTheStreamAndClosesTheDescriptor() async throws {
        let (watcher, events) = try start()
        let descriptor = watcher.inotifyDescriptor
        #expect(descriptorTarget(descriptor) == "anon_inode:inotify")
        watcher.stop()
        #expect(await events.waitForEnd(upTo: .seconds(10)))
        #expect(await within(.seconds(10)) { await watcher.waitForThreadExit() } != nil)
        #expect(descriptorTarget(descriptor) != "anon_inode:inotify")
        #expect(await EventRecorder(watcher.events()).waitForEnd(upTo: .seconds(10)))
    }

    @Test func consumerGoingAwayStopsTheThread() async throws {
        let (watcher, events) = try start()
        let descriptor = watcher.inotifyDescriptor
        events.cancel()
        #expect(await within(.seconds(10)) { await watcher.waitForThreadExit() } != nil)
        #expect(descriptorTarget(descriptor) != "anon_inode:inotify")
    }

    @Test func consumerBreakingOutOfTheLoopStopsTheThread() async throws {
        let watcher = try InboxWatcher(inbox: bytes(box.inbox), skipFolder: skipRule)
        let descriptor = watcher.inotifyDescriptor
        writeFile(box.inbox + "/one.jpg")
        for await event in watcher.events() {
            #expect(event == .candidate(path: bytes(box.inbox + "/one.jpg")))
            break
        }
        #expect(await within(.seconds(10)) { await watcher.waitForThreadExit() } != nil)
        #expect(descriptorTarget(descriptor) != "anon_inode:inotify")
    }

    @Test func stopBeforeEventsClosesAtOnce() throws {
        let watcher = try InboxWatcher(inbox: bytes(box.inbox), skipFolder: skipRule)
        let descriptor = watcher.inotifyDescriptor
        watcher.stop()
        #expect(descriptorTarget(descriptor) != "anon_inode:inotify")
    }
}
