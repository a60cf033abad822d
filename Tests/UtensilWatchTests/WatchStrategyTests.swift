import Foundation
import Testing
@testable import UtensilWatch

@Suite("watch strategy and file-system kinds")
struct WatchStrategyTests {
    @Test(arguments: [
        (UInt32(0x6969), "nfs"), (0xFF53_4D42, "cifs"), (0xFE53_4D42, "smb2"), (0x517B, "smb"),
        (0x6573_5546, "fuse"), (0x0102_1997, "9p"), (0x00C3_6400, "ceph"), (0x5346_414F, "afs"),
    ])
    func networkAndFUSEMagicsPoll(magic: UInt32, name: String) {
        #expect(FileSystemKind.name(forMagic: magic) == name)
        #expect(FileSystemKind.isRemoteOrFUSE(magic: magic))
    }

    @Test(arguments: [
        (UInt32(0xEF53), "ext4"), (0x0102_1994, "tmpfs"), (0x5846_5342, "xfs"), (0x9123_683E, "btrfs"),
        (0x794C_7630, "overlay"),
    ])
    func localMagicsUseInotify(magic: UInt32, name: String) {
        #expect(FileSystemKind.name(forMagic: magic) == name)
        #expect(!FileSystemKind.isRemoteOrFUSE(magic: magic))
    }

    @Test func unknownMagicIsNamedInHexAndTreatedAsLocal() {
        #expect(FileSystemKind.name(forMagic: 0x1234_ABCD) == "unknown (0x1234abcd)")
        #expect(!FileSystemKind.isRemoteOrFUSE(magic: 0x1234_ABCD))
    }

    @Test func realStatfsOnLocalFileSystems() throws {
        #expect(FileSystemKind.name(of: bytes("/dev/shm")) == "tmpfs")
        #expect(FileSystemKind.name(of: bytes("/proc")) == "proc")
        // A path that does not exist yet is judged by its nearest existing parent.
        #expect(FileSystemKind.name(of: bytes("/dev/shm/not/there/yet")) == "tmpfs")
        let box = try Sandbox()
        #expect(FileSystemKind.name(of: bytes(box.inbox)) != nil)
        #expect(!FileSystemKind.isRemoteOrFUSE(bytes(box.inbox)))
    }

    @Test func forcedAndAutomaticChoices() throws {
        let box = try Sandbox()
        #expect(WatchStrategyResolver.resolve(requested: "inotify", inbox: bytes(box.inbox)) == .inotify)
        #expect(WatchStrategyResolver.resolve(requested: "poll", inbox: bytes(box.inbox))
            == .poll(reason: "watch = \"poll\" is configured"))
        #expect(WatchStrategyResolver.resolve(requested: "auto", inbox: bytes(box.inbox)) == .inotify)
        #expect(WatchStrategyResolver.resolve(requested: "auto", inbox: bytes("/dev/shm")) == .inotify)
    }

    @Test func strategyMakesTheMatchingSource() throws {
        let box = try Sandbox()
        let inotify = try WatchStrategy.inotify.makeEventSource(
            inbox: bytes(box.inbox), skipFolder: skipRule, pollInterval: .seconds(2))
        defer { inotify.stop() }
        #expect(inotify is InboxWatcher)
        let poll = try WatchStrategy.poll(reason: "test").makeEventSource(
            inbox: bytes(box.inbox), skipFolder: skipRule, pollInterval: .seconds(2))
        defer { poll.stop() }
        #expect(poll is PollingWatcher)
    }

    @Test func errorMessagesSayWhatToDo() {
        #expect(WatchError.watchLimitReached(path: bytes("/srv/in/a")).description.contains("fs.inotify.max_user_watches"))
        #expect(WatchError.tooManyInotifyInstances.description.contains("fs.inotify.max_user_instances"))
        #expect(WatchError.inboxMissing(path: bytes("/srv/in")).description.contains("/srv/in"))
    }
}

extension WatchStrategyTests {
    /// A real FUSE mount (served by the test itself): `auto` must choose polling.
    @Test(.enabled(if: isRoot && FileManager.default.fileExists(atPath: "/dev/fuse"), "needs root and /dev/fuse"))
    func autoPollsOnARealFUSEMount() async throws {
        let box = try Sandbox()
        guard let fuse = TinyFUSE(mountpoint: box.inbox) else { return }  // mounting not allowed here
        defer { fuse.unmount() }
        let inbox = bytes(box.inbox)
        let answer = await within(.seconds(10)) {
            await onThread { (FileSystemKind.name(of: inbox), WatchStrategyResolver.resolve(requested: "auto", inbox: inbox)) }
        }
        let (name, strategy) = try #require(answer, "statfs on the FUSE mount did not answer")
        #expect(name == "fuse")
        guard case .poll(let reason) = strategy else {
            Issue.record("expected polling on FUSE, got \(strategy)")
            return
        }
        #expect(reason.contains("fuse"))
        #expect(WatchStrategyResolver.resolve(requested: "inotify", inbox: inbox) == .inotify)
    }
}
