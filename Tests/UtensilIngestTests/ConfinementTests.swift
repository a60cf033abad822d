import Foundation
import Glibc
import Testing
import UtensilCatalogModel
@testable import UtensilIngest
import UtensilTestSupport

/// The engine acts only inside its folders: a drop is opened, moved and removed relative to
/// its folder held beneath the inbox, never through a symbolic link in any component. Each
/// case queues a drop, then (as a group member could, while the drop waits to settle) swaps
/// its folder for a link, and only then lets the engine at it.
@Suite("Confinement")
struct ConfinementTests {
    let world: TestWorld

    init() throws { world = try TestWorld() }

    enum Swap: String, CaseIterable, Sendable {
        /// The folder becomes a link to a folder outside holding a photo of the same name:
        /// following it would copy that photo into originals/ and unlink it.
        case photoOutside
        /// The same with a non-photo: following it would move it into rejected/.
        case nonPhotoOutside
        /// The folder itself is moved outside and a link put in its place: the file is the very
        /// one queued (same inode), but it is no longer in the inbox.
        case sameFileMovedOutside
        /// The folder becomes a link to thumbnails/, and the drop is named like a utensil's
        /// thumbnail: following it would ingest and then delete that thumbnail.
        case linkIntoTheStateFolder
    }

    @Test(arguments: Swap.allCases)
    func aFolderSwappedForALinkIsNeverFollowed(_ swap: Swap) throws {
        defer { world.remove() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 1),
            TestImages.jpeg(world.root.appendingPathComponent("b").path, seed: 2),
        ])
        let engine = try world.engine()
        var inputs: [Data] = []
        var target: URL
        var name = swap == .nonPhotoOutside ? "notes.txt" : "Whisk.jpg"
        var canaryFiles: [String: Data] = [name: swap == .nonPhotoOutside ? Data("private notes".utf8) : images[1]]
        if swap == .linkIntoTheStateFolder {
            try world.drop("Spoon.jpg", images[0])
            guard case .ingested(let spoon) = try world.ingest("Spoon.jpg", with: engine) else {
                Issue.record("the first photo was not ingested")
                return
            }
            inputs.append(images[0])
            name = "\(spoon.id.uuidString).jpeg"
            canaryFiles = [:]
        }
        let canary = try OutsideCanary(in: world.root, files: canaryFiles)
        try world.drop("Sub/\(name)", swap == .nonPhotoOutside ? Data("mine".utf8) : images[0])
        let drop = try world.found("Sub/\(name)")

        let sub = world.inbox.appendingPathComponent("Sub")
        switch swap {
        case .photoOutside, .nonPhotoOutside:
            try FileManager.default.removeItem(at: sub)
            target = canary.folder
        case .sameFileMovedOutside:
            target = world.root.appendingPathComponent("moved-out")
            try FileManager.default.moveItem(at: sub, to: target)
        case .linkIntoTheStateFolder:
            try FileManager.default.removeItem(at: sub)
            target = world.thumbnails
        }
        let thumbnailsBefore = world.files(in: world.thumbnails)
        let targetBefore = world.files(in: target)
        #expect(symlink(target.path, sub.path) == 0)

        guard case .vanished = engine.ingest(drop) else {
            Issue.record("the engine followed the link")
            return
        }
        #expect(world.files(in: target) == targetBefore, "nothing moved or removed behind the link")
        #expect(world.files(in: world.thumbnails) == thumbnailsBefore)
        #expect(world.files(in: world.rejected) == [])
        canary.verifyUntouched()
        try InvariantChecker(world: world).verify(inputs: inputs)
    }

    @Test func aDropDeeperThanPathMaxIsFoundAndIngested() throws {
        defer { world.remove() }
        let bytes = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("a").path)])[0]
        // 40 levels of 200-byte folder names: about 8 KB of path, twice PATH_MAX. They sit in
        // a folder "Deep", the drop's category (a 200-character folder name could not be one).
        #expect(mkdir(world.inbox.path + "/Deep", 0o755) == 0)
        try DeepFolder.make(
            in: world.inbox.path + "/Deep", levels: 40, component: String(repeating: "d", count: 200), file: "Deep spoon.jpg",
            bytes: bytes)

        let drops = try InboxScanner(settings: world.settings()).scan()
        #expect(drops.count == 1)
        #expect(drops.first?.inboxPath.count ?? 0 > Int(PATH_MAX))
        let engine = try world.engine()
        for drop in drops {
            guard case .ingested(let record) = engine.ingest(drop) else {
                Issue.record("a drop deeper than PATH_MAX was not ingested")
                return
            }
            #expect(record.name == "Deep spoon")
            #expect(record.category == "Deep")
        }
        #expect(try InboxScanner(settings: world.settings()).scan().isEmpty)
        try InvariantChecker(world: world).verify(inputs: [bytes])
    }

}
