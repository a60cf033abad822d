import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilIngest
import UtensilStorage
@testable import UtensilStore
import UtensilTestSupport

@Suite("Ingest engine")
struct IngestEngineTests {
    let world: TestWorld

    init() throws { world = try TestWorld() }

    func image(_ spec: (String) -> TestImages.Spec) throws -> Data {
        let path = world.root.appendingPathComponent("fixture-\(UUID().uuidString)").path
        return try TestImages.make([spec(path)])[0]
    }

    @Test func aDropNeedingMoreMemoryThanTheWholeBudgetIsTooManyPixels() throws {
        defer { world.remove() }
        // A 2600×2600 Adam7 PNG decodes whole: 27 MB, with its 1,600 px preview's 19 MB over a
        // 32 MiB budget; so does a progressive JPEG of that size (20 MB of coefficients, 8 MB of
        // 5/8-scale output) whose header lies beyond the first MiB (behind 1.2 MB of APP15
        // segments: its cost is read from the whole file); a 2100×2100 baseline JPEG needs its
        // 6/8-scale decode (7 MB), which is its preview, and the encoder's buffer.
        let bombs = try DecodeBombs.make(in: world.root.appendingPathComponent("bombs"), side: 2600, pngs: 1, jpegs: 1)
        let progressive = try #require(bombs["Progressive 1.jpg"])
        let padding = Data((0..<20).flatMap { _ in [0xFF, 0xEF, 0xFF, 0xFF] + [UInt8](repeating: 0x20, count: 0xFFFD) })
        let padded = progressive.prefix(2) + padding + progressive.dropFirst(2)
        try world.drop("Interlaced.png", try #require(bombs["Adam7 1.png"]))
        try world.drop("Padded.jpg", padded)
        try world.drop("Baseline.jpg", try image { TestImages.jpeg($0, width: 2100, height: 2100) })
        let engine = try world.engine(memory: MemoryBudget(bytes: 32 << 20))

        for name in ["Interlaced.png", "Padded.jpg"] {
            guard case .rejected(let rejection, _) = try world.ingest(name, with: engine) else {
                Issue.record("\(name) was not rejected")
                continue
            }
            #expect(rejection.reason == .tooManyPixels, "\(name)")
            #expect(rejection.message.contains("memory_budget of 32 MiB"), "\(name): \(rejection.message)")
        }
        guard case .ingested = try world.ingest("Baseline.jpg", with: engine) else {
            Issue.record("the baseline JPEG was not ingested")
            return
        }
    }

    @Test func aJPEGBecomesAUtensil() throws {
        defer { world.remove() }
        let bytes = try image { TestImages.jpeg($0, width: 1200, height: 900) }
        try world.drop("Spoon.JPG", bytes)
        let engine = try world.engine()
        guard case .ingested(let record) = try world.ingest("Spoon.JPG", with: engine) else {
            Issue.record("not ingested")
            return
        }
        #expect(record.name == "Spoon")
        #expect(record.fileExtension == "jpg")
        #expect(record.width == 1200 && record.height == 900)
        #expect(record.bytes == bytes.count)
        #expect(record.sha256 == sha256Hex(bytes))
        let original = world.originals.appendingPathComponent("\(record.id.uuidString).jpg")
        #expect(try Data(contentsOf: original) == bytes)
        #expect(FileManager.default.fileExists(atPath: world.thumbnails.appendingPathComponent("\(record.id.uuidString).jpeg").path))
        #expect(world.files(in: world.inbox) == [])
        #expect(try InvariantChecker(world: world).verify(inputs: [bytes]).utensils == 1)
    }

    @Test func aPNGInASubFolderBecomesAUtensilAndTheFolderStays() throws {
        defer { world.remove() }
        let bytes = try image { TestImages.png($0, mode: "RGBA") }
        try world.drop("Holiday/Ladle.png", bytes)
        let engine = try world.engine()
        guard case .ingested(let record) = try world.ingest("Holiday/Ladle.png", with: engine) else {
            Issue.record("not ingested")
            return
        }
        #expect(record.name == "Ladle" && record.fileExtension == "png")
        #expect(world.files(in: world.inbox) == ["Holiday"])
        try InvariantChecker(world: world).verify(inputs: [bytes])
    }

    struct RejectionCase: Sendable, CustomTestStringConvertible {
        var fileName: String
        var content: Content
        var reason: RejectionReason
        var testDescription: String { "\(fileName) → \(reason.rawValue)" }

        enum Content: Sendable { case jpeg, png, bytes([UInt8]), truncatedJPEG, pngHeaderBomb(Int, Int) }
    }

    @Test(arguments: [
        RejectionCase(fileName: "   .jpg", content: .jpeg, reason: .emptyName),
        RejectionCase(fileName: String(repeating: "ß", count: 101) + ".jpg", content: .jpeg, reason: .nameTooLong),
        RejectionCase(fileName: "Spoon\nFork.jpg", content: .jpeg, reason: .nameHasLineBreak),
        RejectionCase(fileName: "Spoon\u{1B}.jpg", content: .jpeg, reason: .nameHasControlCharacter),
        RejectionCase(fileName: "Spoon\u{202E}gnp.jpg", content: .jpeg, reason: .nameHasControlCharacter),
        RejectionCase(fileName: "notes.txt", content: .bytes(Array("hello".utf8)), reason: .unsupportedType),
        RejectionCase(fileName: "README", content: .bytes(Array("hello".utf8)), reason: .unsupportedType),
        RejectionCase(fileName: "phone.heic", content: .bytes([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)), reason: .corruptImage),
        RejectionCase(fileName: "phone.jpg", content: .bytes([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)), reason: .extensionMismatch),
        RejectionCase(fileName: "animation.webp", content: .bytes(Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]), reason: .unsupportedType),
        RejectionCase(fileName: "Looks like a heic.heic", content: .jpeg, reason: .extensionMismatch),
        RejectionCase(fileName: "anim.jpg", content: .bytes(Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]), reason: .unsupportedType),
        RejectionCase(fileName: "Empty.jpg", content: .bytes([]), reason: .corruptImage),
        RejectionCase(fileName: "Text.jpg", content: .bytes(Array("not a photo at all".utf8)), reason: .corruptImage),
        RejectionCase(fileName: "Cut.jpg", content: .truncatedJPEG, reason: .corruptImage),
        RejectionCase(fileName: "Looks like a jpeg.jpg", content: .png, reason: .extensionMismatch),
        RejectionCase(fileName: "Looks like a png.png", content: .jpeg, reason: .extensionMismatch),
        RejectionCase(fileName: "Bomb.png", content: .pngHeaderBomb(30000, 30000), reason: .tooManyPixels),
    ])
    func rejectionsMoveTheDropBesideASidecar(_ example: RejectionCase) throws {
        defer { world.remove() }
        let bytes: Data
        switch example.content {
        case .jpeg: bytes = try image { TestImages.jpeg($0) }
        case .png: bytes = try image { TestImages.png($0) }
        case .bytes(let raw): bytes = Data(raw)
        case .truncatedJPEG:
            let whole = try image { TestImages.jpeg($0) }
            bytes = whole.prefix(whole.count / 2)
        case .pngHeaderBomb(let width, let height): bytes = PNGBytes.headerOnly(width: width, height: height)
        }
        try world.drop(example.fileName, bytes)
        let engine = try world.engine()
        guard case .rejected(let rejection, let rejectedAs) = try world.ingest(example.fileName, with: engine) else {
            Issue.record("not rejected")
            return
        }
        #expect(rejection.reason == example.reason)
        #expect(rejection.message.hasSuffix(".") && !rejection.message.contains("\n"))
        #expect(rejectedAs == example.fileName)
        #expect(world.files(in: world.inbox) == [])
        let sidecar = try world.sidecar(for: example.fileName)
        #expect(sidecar["file"] as? String == example.fileName)
        #expect(sidecar["reason"] as? String == example.reason.rawValue)
        #expect(sidecar["message"] as? String == rejection.message)
        #expect(sidecar["bytes"] as? Int == bytes.count)
        let rejectedAt = try #require(sidecar["rejectedAt"] as? String)
        #expect(rejectedAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        #expect(try Data(contentsOf: world.rejected.appendingPathComponent(example.fileName)) == bytes)
        try InvariantChecker(world: world).verify(inputs: [bytes])
    }

    @Test func aNameThatIsNotUTF8IsRejectedAndStillMoved() throws {
        defer { world.remove() }
        let bytes = try image { TestImages.jpeg($0) }
        let name: [UInt8] = [0x53, 0xFF, 0x6F] + Array(".jpg".utf8)
        let path = RawPath(world.inbox.path).appending(name)
        _ = bytes.withUnsafeBytes { raw in
            path.withCString { cPath -> Int in
                let fd = open(cPath, O_WRONLY | O_CREAT | O_EXCL, 0o644)
                defer { close(fd) }
                return write(fd, raw.baseAddress!, raw.count)
            }
        }
        let engine = try world.engine()
        let outcome = engine.ingest(Drop(path: path, inboxPath: name, status: try FileOps.lstat(path)))
        guard case .rejected(let rejection, _) = outcome else {
            Issue.record("not rejected")
            return
        }
        #expect(rejection.reason == .nameNotUTF8)
        let moved = RawPath(world.rejected.path).appending(name)
        #expect(try FileOps.lstat(moved).size == bytes.count)
        #expect((try? FileOps.lstat(path)) == nil)
    }

    @Test func tooLargeFollowsTheConfiguredLimit() throws {
        defer { world.remove() }
        let bytes = try image { TestImages.jpeg($0) }
        try world.drop("Big.jpg", bytes)
        let engine = try world.engine(world.settings(maxFileBytes: bytes.count - 1))
        guard case .rejected(let rejection, _) = try world.ingest("Big.jpg", with: engine) else {
            Issue.record("not rejected")
            return
        }
        #expect(rejection.reason == .tooLarge)
    }

    @Test func specialFilesAreNotRegularFilesAndNothingBlocks() throws {
        defer { world.remove() }
        let inbox = world.inbox.path
        #expect(mkfifo(inbox + "/Pipe.jpg", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: inbox + "/Shadow.jpg", withDestinationPath: "/etc/shadow")
        try FileManager.default.createDirectory(atPath: inbox + "/Folder.jpg", withIntermediateDirectories: false)
        let socketFD = try UnixSocket.bound(to: inbox + "/Socket.jpg", type: SOCK_STREAM)
        defer { close(socketFD) }
        let engine = try world.engine()
        for name in ["Pipe.jpg", "Shadow.jpg", "Folder.jpg", "Socket.jpg"] {
            guard case .rejected(let rejection, _) = try world.ingest(name, with: engine) else {
                Issue.record("\(name) not rejected")
                continue
            }
            #expect(rejection.reason == .notARegularFile, "\(name)")
            #expect(try world.sidecar(for: name)["reason"] as? String == "not-a-regular-file")
        }
        // The symlink itself was moved, not what it points to.
        let moved = try FileManager.default.destinationOfSymbolicLink(atPath: world.rejected.appendingPathComponent("Shadow.jpg").path)
        #expect(moved == "/etc/shadow")
        #expect(world.files(in: world.inbox) == [])
    }

    @Test func duplicateNamesAreRejectedAcrossCaseAndNormalisation() throws {
        defer { world.remove() }
        let first = try image { TestImages.jpeg($0, seed: 1) }
        let second = try image { TestImages.png($0, seed: 2) }
        try world.drop("Crème.jpg", first)
        try world.drop("CRE\u{0300}ME.png", second)
        let engine = try world.engine()
        guard case .ingested = try world.ingest("Crème.jpg", with: engine) else {
            Issue.record("first not ingested")
            return
        }
        guard case .rejected(let rejection, _) = try world.ingest("CRE\u{0300}ME.png", with: engine) else {
            Issue.record("second not rejected")
            return
        }
        #expect(rejection.reason == .duplicateName)
        #expect(rejection.message.contains("Crème"))
        try InvariantChecker(world: world).verify(inputs: [first, second])
    }

    @Test func duplicateContentIsRejectedUnlessAllowed() throws {
        defer { world.remove() }
        let bytes = try image { TestImages.jpeg($0) }
        try world.drop("Spoon.jpg", bytes)
        try world.drop("Same spoon.jpg", bytes)
        try world.drop("Same spoon again.jpg", bytes)
        let strict = try world.engine()
        guard case .ingested = try world.ingest("Spoon.jpg", with: strict) else {
            Issue.record("not ingested")
            return
        }
        guard case .rejected(let rejection, _) = try world.ingest("Same spoon.jpg", with: strict) else {
            Issue.record("not rejected")
            return
        }
        #expect(rejection.reason == .duplicateContent)
        let lenient = try world.engine(world.settings(rejectDuplicateContent: false))
        guard case .ingested = try world.ingest("Same spoon again.jpg", with: lenient) else {
            Issue.record("duplicate content not allowed")
            return
        }
        try InvariantChecker(world: world).verify(inputs: [bytes, bytes, bytes])
    }

    @Test func duplicateNamesAreIngestedWhenAllowed() async throws {
        defer { world.remove() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 1),
            TestImages.jpeg(world.root.appendingPathComponent("b").path, seed: 2),
        ])
        try world.drop("Spoon.jpg", images[0])
        try world.drop("Kitchen/spoon.jpg", images[1])
        let engine = try world.engine(world.settings(rejectDuplicateNames: false))
        for name in ["Spoon.jpg", "Kitchen/spoon.jpg"] {
            guard case .ingested = try world.ingest(name, with: engine) else {
                Issue.record("\(name) not ingested")
                return
            }
        }
        #expect(try await engine.store.catalog.count() == 2)
    }

    @Test func rejectedNamesNeverOverwrite() throws {
        defer { world.remove() }
        let engine = try world.engine()
        for round in 1...3 {
            try world.drop("Broken.jpg", Data("junk \(round)".utf8))
            guard case .rejected(_, let rejectedAs) = try world.ingest("Broken.jpg", with: engine) else {
                Issue.record("not rejected")
                return
            }
            #expect(rejectedAs == (round == 1 ? "Broken.jpg" : "Broken (\(round)).jpg"))
        }
        #expect(world.files(in: world.rejected) == [
            "Broken (2).jpg", "Broken (2).jpg.error.json", "Broken (3).jpg", "Broken (3).jpg.error.json",
            "Broken.jpg", "Broken.jpg.error.json",
        ])
    }

    @Test func aNameTooLongForTheSidecarIsShortenedButTheJSONKeepsIt() throws {
        defer { world.remove() }
        let long = String(repeating: "é", count: 100) + String(repeating: "x", count: 50) + ".txt"  // 254 bytes
        #expect(long.utf8.count == 254)
        try world.drop(long, Data("text".utf8))
        let engine = try world.engine()
        guard case .rejected(_, let rejectedAs) = try world.ingest(long, with: engine) else {
            Issue.record("not rejected")
            return
        }
        #expect((rejectedAs + ".error.json").utf8.count <= 255)
        #expect(rejectedAs.hasSuffix(".txt"))
        #expect(try world.sidecar(for: rejectedAs)["file"] as? String == long)
    }

    @Test func whenTheCommitFailsNoFilesAreLeftAndTheDropStays() throws {
        defer { world.remove() }
        let bytes = try image { TestImages.jpeg($0) }
        try world.drop("Spoon.jpg", bytes)
        let engine = try world.engine(busyTimeout: 0.05)
        let lock = try SQLiteLock(path: world.settings().catalogPath)
        defer { lock.release() }
        guard case .retryLater(let failure) = try world.ingest("Spoon.jpg", with: engine) else {
            Issue.record("should be left for retry")
            return
        }
        #expect(failure.kind == .catalogUnavailable)
        #expect(world.files(in: world.originals) == [])
        #expect(world.files(in: world.thumbnails) == [])
        #expect(world.files(in: world.inbox) == ["Spoon.jpg"])
        lock.release()
        guard case .ingested = try world.ingest("Spoon.jpg", with: engine) else {
            Issue.record("not ingested once the lock is gone")
            return
        }
        try InvariantChecker(world: world).verify(inputs: [bytes])
    }

    @Test func aDropReplacedBeforeItIsOpenedIsLeftForItsOwnTurn() throws {
        defer { world.remove() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 1),
            TestImages.jpeg(world.root.appendingPathComponent("b").path, seed: 2),
        ])
        try world.drop("Spoon.jpg", images[0])
        let drop = try world.found("Spoon.jpg")
        // Replace the inbox entry with another file (another inode) before the engine reads it.
        try world.drop("Spoon.jpg.new", images[1])
        #expect(rename(world.inbox.appendingPathComponent("Spoon.jpg.new").path, world.inbox.appendingPathComponent("Spoon.jpg").path) == 0)
        let engine = try world.engine()
        // The engine opens only the file that was queued: the new one is left alone …
        guard case .vanished = engine.ingest(drop) else {
            Issue.record("the replacement was taken for the queued drop")
            return
        }
        #expect(world.files(in: world.inbox) == ["Spoon.jpg"])
        // … and ingested as itself when it is queued in its turn.
        guard case .ingested(let record) = try world.ingest("Spoon.jpg", with: engine) else {
            Issue.record("the replacement was not ingested in its own turn")
            return
        }
        #expect(record.sha256 == sha256Hex(images[1]))
        try InvariantChecker(world: world).verify(inputs: [images[1]], inbox: .mustBeEmpty)
    }

    @Test func aDropSettlesOnceUnchangedForSettleSeconds() throws {
        defer { world.remove() }
        let url = try world.drop("Quiet.jpg", Data("x".utf8))
        let now = Date()
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-1)], ofItemAtPath: url.path)
        let status = try world.found("Quiet.jpg").status
        let policy = SettlePolicy(settleSeconds: 3)
        #expect(abs(policy.secondsUntilSettled(status, now: now) - 2) < 0.01)
        #expect(!policy.isSettled(status, now: now))
        #expect(policy.secondsUntilSettled(status, now: now.addingTimeInterval(2.1)) == 0)
        #expect(policy.isSettled(status, now: now.addingTimeInterval(2.1)))
    }

    @Test func neverSettledWhenTheFileKeepsChanging() throws {
        defer { world.remove() }
        let url = try world.drop("Growing.jpg", Data("x".utf8))
        // A modification time in the future never becomes old enough.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(3600)], ofItemAtPath: url.path)
        var policy = SettlePolicy(settleSeconds: 0.1)
        policy.giveUpAfterSeconds = 0.3
        guard case .neverSettled = policy.waitUntilSettled(try world.found("Growing.jpg")) else {
            Issue.record("expected never-settled")
            return
        }
    }
}
