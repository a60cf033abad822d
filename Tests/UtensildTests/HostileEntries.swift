import Foundation
import Glibc
import Testing
import UtensilCatalogModel
import UtensilCore
import UtensilTestSupport

/// Placing and inspecting hostile entries by their raw byte names, never opening anything that
/// could block (a FIFO) or lead outside the test's folders (a symlink).
enum HostileEntries {
    typealias Case = HostileFilesTests.Case

    /// `folder/name` as a C path (the name need not be UTF-8).
    static func path(_ folder: String, _ name: [UInt8]) -> [CChar] {
        (Array(folder.utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
    }

    static func exists(_ folder: String, _ name: [UInt8]) -> Bool {
        var status = stat()
        return lstat(path(folder, name), &status) == 0
    }

    static func lstatOf(_ folder: String, _ name: [UInt8]) -> stat? {
        var status = stat()
        return lstat(path(folder, name), &status) == 0 ? status : nil
    }

    /// Puts a case's entry into the inbox. Files are written beside the inbox and renamed in,
    /// so that the daemon never sees half a file; the rest is made in place, as a person would.
    static func place(_ item: Case, in world: TestWorld, keeping descriptors: inout [Int32]) throws {
        let target = path(world.inbox.path, item.name)
        func check(_ result: Int32, _ what: String) throws {
            if result != 0 { throw TestFailure("\(what) \(item.shownName): \(String(cString: strerror(errno)))") }
        }
        switch item.entry {
        case .file(let bytes):
            let staging = world.root.appendingPathComponent("staging")
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            let temporary = staging.appendingPathComponent(UUID().uuidString)
            try bytes.write(to: temporary)
            try check(rename(temporary.path, target), "rename into the inbox")
        case .fifo:
            try check(mkfifo(target, 0o644), "mkfifo")
        case .socket:
            let name = String(decoding: item.name, as: UTF8.self)
            descriptors.append(try UnixSocket.bound(to: world.inbox.appendingPathComponent(name).path, type: SOCK_STREAM))
        case .symlink(let destination):
            try check(symlink(destination, target), "symlink")
        case .folder:
            try check(mkdir(target, 0o755), "mkdir")
        case .hardLink(let outside, let bytes):
            let folder = world.root.appendingPathComponent("hard-links")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let original = folder.appendingPathComponent(outside)
            if !FileManager.default.fileExists(atPath: original.path) { try bytes.write(to: original) }
            try check(link(original.path, target), "link")
        case .folderSwappedForLink(let bytes):
            let name = String(decoding: item.name, as: UTF8.self)
            let folder = world.inbox.appendingPathComponent(name)
            let photo = folder.appendingPathComponent("Waiting.jpg")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try bytes.write(to: photo)
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(2)], ofItemAtPath: photo.path)
            let away = swappedAway(world, item)
            try FileManager.default.createDirectory(at: away.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: folder, to: away)
            try check(symlink(away.path, target), "symlink")
        case .pausedWriter(let bytes):
            let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw TestFailure("create \(item.shownName): \(String(cString: strerror(errno)))") }
            let half = bytes.count / 2
            guard writeAll(fd, bytes.prefix(half)) else {
                close(fd)
                throw TestFailure("write \(item.shownName): \(String(cString: strerror(errno)))")
            }
            // The writer's own pace, not a synchronisation: it rests, then finishes on its own
            // while the test goes on (the wave waits for the drop to leave the inbox).
            let rest = bytes.suffix(from: half)
            Thread.detachNewThread {
                usleep(1_000_000)
                _ = writeAll(fd, rest)
                close(fd)
            }
        }
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    /// Where a `.folderSwappedForLink` case's folder went (outside the inbox).
    static func swappedAway(_ world: TestWorld, _ item: Case) -> URL {
        world.root.appendingPathComponent("swapped-away").appendingPathComponent(String(decoding: item.name, as: UTF8.self))
    }

    /// Every sidecar in `rejected/`, read by raw names.
    static func sidecars(in folder: String) throws -> [RejectionSidecar] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var found: [RejectionSidecar] = []
        let suffix = Array(RejectionSidecar.suffix.utf8)
        while let entry = readdir(directory) {
            let name = DirectoryEntryName.bytes(of: entry)
            guard name.count > suffix.count, Array(name.suffix(suffix.count)) == suffix else { continue }
            let fd = open(path(folder, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { throw TestFailure("cannot open the sidecar \(String(decoding: name, as: UTF8.self))") }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            let data = try handle.readToEnd() ?? Data()
            found.append(try JSONDecoder().decode(RejectionSidecar.self, from: data))
        }
        return found
    }

    /// Whether the shared invariant check can read this case's rejected entry as a file: it
    /// lists folders through FileManager (UTF-8 names) and reads entries by following links.
    static func invariantReads(_ item: Case) -> Bool {
        guard item.bytes != nil else { return false }
        return String(validating: item.name, as: UTF8.self) != nil
    }

    /// Moves the entries the shared invariant cannot read (special files, links, non-UTF-8
    /// names) out of `rejected/` with their sidecars, once they have been checked here.
    static func setAsideWhatTheInvariantCannotRead(world: TestWorld, cases: [Case]) {
        let aside = world.root.appendingPathComponent("set-aside").path
        mkdir(aside, 0o755)
        for item in cases where !invariantReads(item) {
            let sidecar = item.name + Array(RejectionSidecar.suffix.utf8)
            for name in [item.name, sidecar] where exists(world.rejected.path, name) {
                let moved = rename(path(world.rejected.path, name), path(aside, name))
                #expect(moved == 0, "could not set \(item.shownName) aside")
            }
        }
    }

    /// Links were moved as links, never followed: their targets are untouched and no original
    /// holds the bytes of `/etc/shadow` or of the photo outside the inbox.
    static func checkNothingFollowed(world: TestWorld, cases: [Case], outside: URL, outsideBytes: Data) throws {
        #expect(try Data(contentsOf: outside) == outsideBytes, "the photo outside the inbox changed")
        let shadow = (try? Data(contentsOf: URL(fileURLWithPath: "/etc/shadow"))).map(sha256Hex)
        for name in world.files(in: world.originals) {
            let digest = sha256Hex(try Data(contentsOf: world.originals.appendingPathComponent(name)))
            #expect(digest != shadow && digest != sha256Hex(outsideBytes), "\(name) holds bytes from outside the inbox")
        }
        for item in cases {
            guard case .folderSwappedForLink(let bytes) = item.entry else { continue }
            let photo = swappedAway(world, item).appendingPathComponent("Waiting.jpg")
            #expect(try Data(contentsOf: photo) == bytes, "\(item.label): the photo behind the link was touched")
            #expect(!world.files(in: world.originals).contains { name in
                (try? Data(contentsOf: world.originals.appendingPathComponent(name))) == bytes
            }, "\(item.label): the photo behind the link was read into originals/")
        }
        for item in cases {
            guard case .symlink(let destination) = item.entry else { continue }
            guard let status = lstatOf(world.rejected.path, item.name) else {
                Issue.record("\(item.label): the link is not in rejected/")
                continue
            }
            #expect(status.st_mode & S_IFMT == S_IFLNK, "\(item.label): rejected/ holds something other than the link")
            var buffer = [CChar](repeating: 0, count: 4096)
            let length = readlink(path(world.rejected.path, item.name), &buffer, buffer.count - 1)
            #expect(length > 0 && String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == destination,
                    "\(item.label): the link's target changed")
        }
        for item in cases {
            let expectedKind: mode_t? = switch item.entry {
            case .fifo: S_IFIFO
            case .socket: S_IFSOCK
            case .folder: S_IFDIR
            default: nil
            }
            guard let expectedKind else { continue }
            #expect(lstatOf(world.rejected.path, item.name).map { $0.st_mode & S_IFMT } == expectedKind,
                    "\(item.label): not moved to rejected/ as it was")
        }
    }
}
