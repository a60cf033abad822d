import Foundation
import Glibc
import Testing
@testable import UtensilConfig

/// A configuration whose folders all live under `root`.
private func configuration(under root: String) -> UtensilConfiguration {
    var config = UtensilConfiguration.defaults
    config.inbox = root + "/inbox"
    config.rejected = root + "/rejected"
    config.stateDir = root + "/state"
    config.controlSocket = root + "/run/control.sock"
    return config
}

private func isFolder(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
}

@Suite struct FolderTests {
    @Test func probesLeftByAKilledRunInTheInboxAreRemovedAndNothingElse() throws {
        let folder = try TemporaryFolder()
        let config = configuration(under: folder.path)
        try config.prepareFolders()
        // No process has the pid `pid_max`: its probe is a killed run's.
        let pidMax = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let stale = ".tmp-probe-\(pidMax)-1", live = ".tmp-probe-\(getpid())-2", full = ".tmp-probe-\(pidMax)-3"
        let link = ".tmp-probe-\(pidMax)-4"
        for name in [stale, live] { _ = FileManager.default.createFile(atPath: folder.file("inbox/" + name), contents: Data()) }
        _ = FileManager.default.createFile(atPath: folder.file("inbox/" + full), contents: Data("mine".utf8))
        #expect(symlink("/etc/passwd", folder.file("inbox/" + link)) == 0)
        _ = FileManager.default.createFile(atPath: folder.file("state/" + stale), contents: Data())
        try config.prepareFolders()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("inbox")).sorted() == [full, live, link].sorted())
        // The state folders are probed with unnamed files and never listed here (originals/ may
        // hold a million names); start-up reconciliation removes a probe in the state folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("state")).sorted() == [stale, "originals", "previews", "thumbnails"].sorted())
    }

    @Test func createsEveryFolderAndLeavesNoProbe() throws {
        let folder = try TemporaryFolder()
        let config = configuration(under: folder.path)
        try config.prepareFolders()
        try config.prepareFolders() // again: nothing to do, no error
        for path in ["inbox", "rejected", "state", "state/originals", "state/thumbnails", "run"] {
            #expect(isFolder(folder.file(path)), "\(path)")
        }
        for path in ["inbox", "rejected", "state", "run"] {
            let content = try FileManager.default.contentsOfDirectory(atPath: folder.file(path))
            #expect(content.allSatisfy { !$0.hasPrefix(".tmp-probe") }, "\(path): \(content)")
        }
    }

    @Test func aMissingParentFailsNamingTheKey() throws {
        let folder = try TemporaryFolder()
        var config = configuration(under: folder.path)
        config.stateDir = folder.file("missing/state")
        let error = try #require(throws: ConfigurationError.self) { try config.prepareFolders() }
        guard case .unusableFolder(.stateDir, folder.file("missing/state"), let problem) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(problem.contains("parent folder \"\(folder.file("missing"))\" does not exist"))
        #expect(error.description.hasPrefix("state_dir: cannot use "))
    }

    @Test func aFileWhereAFolderBelongsFails() throws {
        let folder = try TemporaryFolder()
        try folder.write("not a folder", to: "inbox")
        let error = try #require(throws: ConfigurationError.self) { try configuration(under: folder.path).prepareFolders() }
        #expect(error.key == .inbox)
        #expect(error.description.contains("not a folder"))
    }

    @Test func theSocketPathMustBeFreeOrASocket() throws {
        let folder = try TemporaryFolder()
        let config = configuration(under: folder.path)
        try FileManager.default.createDirectory(atPath: folder.file("run"), withIntermediateDirectories: false)
        try folder.write("", to: "run/control.sock")
        let error = try #require(throws: ConfigurationError.self) { try config.prepareFolders() }
        #expect(error.key == .controlSocket)

        try FileManager.default.removeItem(atPath: config.controlSocket)
        #expect(mknod(config.controlSocket, S_IFSOCK | 0o600, 0) == 0)
        try config.prepareFolders() // a stale socket is the daemon's to replace
    }

    /// A real read-only mount: root writes through permission bits, but not through `ro`.
    @Test(.enabled(if: getuid() == 0, "mounting a read-only tmpfs needs root"))
    func aReadOnlyMountFails() throws {
        let folder = try TemporaryFolder()
        let mountPoint = folder.file("ro")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        try #require(mount("tmpfs", mountPoint, "tmpfs", UInt(MS_RDONLY), "size=64k") == 0,
                     "mount: \(String(cString: strerror(errno)))")
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }

        var existing = configuration(under: folder.path)
        existing.stateDir = mountPoint
        let notWritable = try #require(throws: ConfigurationError.self) { try existing.prepareFolders() }
        guard case .unusableFolder(.stateDir, mountPoint, let problem) = notWritable else {
            Issue.record("unexpected \(notWritable)")
            return
        }
        #expect(problem.contains("not writable (Read-only file system)"))

        var inside = configuration(under: folder.path)
        inside.rejected = mountPoint + "/rejected"
        let cannotCreate = try #require(throws: ConfigurationError.self) { try inside.prepareFolders() }
        #expect(cannotCreate.key == .rejected)
        #expect(cannotCreate.description.contains("cannot create it: Read-only file system"))
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aRejectedFolderOnAnotherMountFails() throws {
        let folder = try TemporaryFolder()
        let mountPoint = folder.file("elsewhere")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        try #require(mount("tmpfs", mountPoint, "tmpfs", 0, "size=64k") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }

        var config = configuration(under: folder.path)
        config.rejected = mountPoint + "/rejected"
        let error = try #require(throws: ConfigurationError.self) { try config.prepareFolders() }
        #expect(error.key == .rejected)
        #expect(error.description.contains("on another file system or mount point than the inbox"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: config.inbox).isEmpty, "the probe was left in the inbox")
        #expect(try FileManager.default.contentsOfDirectory(atPath: config.rejected).isEmpty)
    }

    /// Permission bits stop a non-root daemon; as root they are ignored, which the probe reports truthfully.
    @Test func permissionBitsMatchWhoIsAsking() throws {
        let folder = try TemporaryFolder()
        let config = configuration(under: folder.path)
        try config.prepareFolders()
        #expect(chmod(config.inbox, 0o555) == 0)
        defer { chmod(config.inbox, 0o755) }
        if getuid() == 0 {
            try config.prepareFolders()
        } else {
            let error = try #require(throws: ConfigurationError.self) { try config.prepareFolders() }
            #expect(error.key == .inbox)
        }
    }
}
