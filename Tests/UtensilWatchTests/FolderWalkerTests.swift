import Foundation
import Glibc
import Testing
@testable import UtensilWatch

@Suite("folder walking")
struct FolderWalkerTests {
    /// Walks the tree below `box.inbox` from `start`; returns the folders and files seen.
    func walk(
        _ box: Sandbox, from start: String = "", excluded: Set<FolderIdentity> = []
    ) -> (folders: Set<[UInt8]>, files: Set<[UInt8]>, outcome: FolderWalker.Outcome) {
        var folders = Set<[UInt8]>()
        var files = Set<[UInt8]>()
        let outcome = FolderWalker(skipFolder: skipRule, excluded: excluded).walk(
            inbox: bytes(box.inbox), from: bytes(start),
            folder: { folders.insert($0.path); return .descend },
            file: { path, _ in files.insert(path) })
        return (folders, files, outcome)
    }

    @Test func walksEveryDepthAndPathsLongerThanPathMax() throws {
        let box = try Sandbox()
        // 40 levels (more than the old limit of 32), and 25 levels of 200-byte names (5 KB).
        let deep = try DeepChain.make(in: box.inbox, levels: 40, component: "d")
        try box.mkdir(box.inbox + "/Long")
        let long = try DeepChain.make(in: box.inbox + "/Long", levels: 25, component: String(repeating: "l", count: 200))
        deep.writeFile("deep.jpg")
        long.writeFile("long.jpg")
        #expect(long.bottom.count > Int(PATH_MAX))

        let (folders, files, outcome) = walk(box)
        #expect(outcome.startError == nil && !outcome.aborted && outcome.unvisited == nil)
        #expect(folders.count == 1 + 40 + 1 + 25)
        #expect(folders.contains(deep.bottom) && folders.contains(long.bottom))
        #expect(files == [deep.bottom + bytes("/deep.jpg"), long.bottom + bytes("/long.jpg")])
    }

    @Test func skipsSymlinksSkippedAndExcludedFolders() throws {
        let box = try Sandbox()
        try box.mkdir(box.inbox + "/@eaDir/inner")
        try box.mkdir(box.inbox + "/rejected")
        try box.mkdir(box.outside + "/real")
        writeFile(box.outside + "/real/far.jpg")
        symlink(box.outside + "/real", box.inbox + "/link")
        writeFile(box.inbox + "/top.jpg")
        let rejected = try #require(FolderIdentity(folderAt: bytes(box.inbox + "/rejected")))
        let (folders, files, _) = walk(box, excluded: [rejected])
        #expect(folders == [bytes(box.inbox)])
        #expect(files == [bytes(box.inbox + "/top.jpg"), bytes(box.inbox + "/link")])
    }

    @Test func aFolderReachedThroughALinkIsNeverEntered() throws {
        let box = try Sandbox()
        // A sub-folder of the inbox swapped for a link to a folder outside: a walk of a folder
        // below it (as after its creation was reported) must not go there.
        try box.mkdir(box.outside + "/real/inner")
        writeFile(box.outside + "/real/inner/far.jpg")
        #expect(symlink(box.outside + "/real", box.inbox + "/Sub") == 0)
        let (folders, files, outcome) = walk(box, from: "Sub/inner")
        #expect(folders.isEmpty && files.isEmpty)
        #expect(outcome.startError == ELOOP)
        // A way out with `..` is refused too.
        let (outFolders, _, outOutcome) = walk(box, from: "../outside/real")
        #expect(outFolders.isEmpty && outOutcome.startError != nil)
    }
}
