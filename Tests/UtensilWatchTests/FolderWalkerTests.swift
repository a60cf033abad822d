import Foundation
import Glibc
import Testing
@testable import UtensilWatch

@Suite("folder walking")
struct FolderWalkerTests {
    @Test func stopsAtDepth32AndSkipsSymlinksSkippedAndExcludedFolders() throws {
        let box = try Sandbox()
        var deep = box.inbox
        for level in 1...35 { deep += "/d\(level)" }
        try box.mkdir(deep)
        try box.mkdir(box.inbox + "/@eaDir/inner")
        try box.mkdir(box.inbox + "/rejected")
        try box.mkdir(box.outside + "/real")
        symlink(box.outside + "/real", box.inbox + "/link")
        writeFile(box.inbox + "/top.jpg")
        let rejected = try #require(FolderIdentity(folderAt: bytes(box.inbox + "/rejected")))
        let walker = FolderWalker(skipFolder: skipRule, excluded: [rejected])
        var folders: [[UInt8]: Int] = [:]
        var files: [[UInt8]] = []
        walker.walk(bytes(box.inbox), depth: 0, isInbox: true, folder: { path, depth in
            folders[path] = depth
            return .descend
        }, file: { path, _ in files.append(path) })
        #expect(folders.values.max() == FolderWalker.maxDepth)
        #expect(folders.count == FolderWalker.maxDepth + 1)
        #expect(folders.keys.allSatisfy { !String(decoding: $0, as: UTF8.self).contains("@eaDir") })
        #expect(folders[bytes(box.inbox + "/rejected")] == nil)
        #expect(folders[bytes(box.inbox + "/link")] == nil)
        #expect(Set(files) == [bytes(box.inbox + "/top.jpg"), bytes(box.inbox + "/link")])
    }
}
