import Crypto
import Foundation
import Testing
import UtensilCore
import UtensilStorage

/// The promises of ``RenditionStorage`` the store builds on, checked for every storage by
/// ``LocalStorageContractTests`` and ``S3StorageContractTests``: staged bytes are kept and not
/// live until published, a publish never replaces a live rendition, deletes and discards are
/// idempotent, the listings say what is there, and reads by id give the bytes, whole or a range
/// of them; with ``recovery``, the whole contract is ``clauses``.
enum RenditionStorageContract {
    /// Every clause of the contract, in the order they are listed.
    static let clauses: [StorageContractClause] = publishing + recovery

    static let publishing: [StorageContractClause] = [
        .init("staged renditions are kept, not live, until published; then they are read by id", stagedThenPublished),
        .init("a publish never replaces a live rendition, and leaves the staged ones for a discard", publishNeverReplaces),
        .init("a delete and a discard of what is already gone are fine", idempotentRemoval),
        .init("ranged reads give the bytes of the range, cut off at the end", rangedReads),
        .init("the listings hold every live rendition and every unfinished operation", listings),
        .init("a rendition that is not there is not found, by a read or its size", absence),
        .init("the original goes live last: a publish stopped by a live thumbnail leaves it staged", originalLast),
        .init("a grid square is a rendition of its own: staged, published first, listed, replaced, deleted", gridSquare),
        .init("a new utensil's renditions are live once published, and gone, live or staged, once discarded", newUtensil),
        .init("a new utensil begun with its original alone is joined by the rest, or discarded whole", newUtensilBegun),
    ]

    /// Every rendition, with bytes of its own.
    static func renditions(_ seed: UInt8) -> [Rendition: [UInt8]] {
        [
            .original: (0..<300).map { UInt8(truncatingIfNeeded: $0) &+ seed },
            .thumbnail: Array(repeating: seed, count: 40),
            .preview: Array(repeating: seed &+ 1, count: 120),
            .square: Array(repeating: seed &+ 2, count: 80),
        ]
    }

    static func stagedThenPublished(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let id = UUID()
        let bytes = Self.renditions(7)
        let staged = try await storage.stage(bytes, of: id, originalExtension: "png")
        #expect(staged.utensil == id)
        #expect(staged.renditions == [.original, .thumbnail, .preview, .square])
        try await storage.makeDurable([staged])

        // Durable before the commit: a storage opened afresh (the daemon after a crash)
        // finds the operation staged, and nothing of it live.
        let afterCrash = try await opened.reopened()
        #expect(try await afterCrash.listStaged() == [staged])
        for rendition in Rendition.allCases {
            #expect(try await afterCrash.list(rendition).isEmpty)
            await #expect(throws: StorageError.notFound(staged.key(rendition))) {
                try await afterCrash.read(staged.key(rendition), range: nil)
            }
        }

        try await storage.publish(staged)
        #expect(try await storage.listStaged().isEmpty)
        for rendition in Rendition.allCases {
            let key = staged.key(rendition)
            #expect(try await storage.read(key, range: nil) == bytes[rendition])
            #expect(try await storage.size(of: key) == Int64(bytes[rendition]!.count))
            #expect(try await storage.list(rendition) == [key])
        }
        #expect(staged.key(.original).fileExtension == "png")
        #expect(staged.key(.thumbnail).fileExtension == "jpeg")
        #expect(staged.key(.square).fileExtension == "jpeg")
    }

    static func publishNeverReplaces(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let id = UUID()
        let first = try await storage.stage(Self.renditions(1), of: id, originalExtension: "jpeg")
        try await storage.makeDurable([first])
        try await storage.publish(first)

        let second = try await storage.stage([.preview: [9, 9, 9]], of: id, originalExtension: "jpeg")
        try await storage.makeDurable([second])
        await #expect(throws: StorageError.alreadyLive(second.key(.preview))) { try await storage.publish(second) }
        #expect(try await storage.read(first.key(.preview), range: nil) == Self.renditions(1)[.preview])
        #expect(try await storage.listStaged() == [second])

        try await storage.discard(second)
        #expect(try await storage.listStaged().isEmpty)
        // Published or discarded, an operation has nothing staged left to publish.
        await #expect(throws: StorageError.notStaged(second.key(.preview))) { try await storage.publish(second) }
        // (The first of its renditions to publish, the grid square, says so.)
        await #expect(throws: StorageError.notStaged(first.key(.square))) { try await storage.publish(first) }
    }

    static func idempotentRemoval(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let staged = try await storage.stage(Self.renditions(3), of: UUID(), originalExtension: "webp")
        try await storage.makeDurable([staged])
        try await storage.publish(staged)
        let key = staged.key(.original)
        try await storage.delete(key)
        try await storage.delete(key)
        try await storage.delete(RenditionKey(.thumbnail, of: UUID(), originalExtension: "jpeg"))
        await #expect(throws: StorageError.notFound(key)) { try await storage.read(key, range: nil) }
        await #expect(throws: StorageError.notFound(key)) { try await storage.size(of: key) }
        #expect(try await storage.list(.original).isEmpty)
        #expect(try await storage.list(.thumbnail) == [staged.key(.thumbnail)], "only what was deleted is gone")

        let never = try await storage.stage([.thumbnail: [1]], of: UUID(), originalExtension: "jpeg")
        try await storage.discard(never)
        try await storage.discard(never)
        #expect(try await storage.listStaged().isEmpty)
    }

    static func rangedReads(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let bytes = Self.renditions(5)
        let staged = try await storage.stage(bytes, of: UUID(), originalExtension: "heic")
        try await storage.makeDurable([staged])
        try await storage.publish(staged)
        let key = staged.key(.original)
        let original = try #require(bytes[.original])
        #expect(try await storage.read(key, range: 0..<10) == Array(original[0..<10]))
        #expect(try await storage.read(key, range: 100..<164) == Array(original[100..<164]))
        #expect(try await storage.read(key, range: 290..<1000) == Array(original[290...]), "cut off at the end")
        #expect(try await storage.read(key, range: 300..<400) == [], "nothing past the end")
        #expect(try await storage.read(key, range: 0..<0) == [])
    }

    static func listings(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        var published: [RenditionKey] = []
        for (seed, type) in [(1, "jpeg"), (2, "png"), (3, "heic")] {
            let staged = try await storage.stage(Self.renditions(UInt8(seed)), of: UUID(), originalExtension: type)
            try await storage.makeDurable([staged])
            try await storage.publish(staged)
            published.append(staged.key(.original))
        }
        // Two unfinished operations, made durable together: one of a new utensil, one that
        // stages only a thumbnail and a preview (a rethumb) of a utensil above.
        let fresh = try await storage.stage(Self.renditions(4), of: UUID(), originalExtension: "webp")
        let rethumb = try await storage.stage([.thumbnail: [1], .preview: [2]], of: published[0].utensil, originalExtension: "jpeg")
        try await storage.makeDurable([fresh, rethumb])

        func sorted(_ keys: [RenditionKey]) -> [RenditionKey] { keys.sorted { $0.utensil.uuidString < $1.utensil.uuidString } }
        #expect(sorted(try await storage.list(.original)) == sorted(published))
        #expect(sorted(try await storage.list(.preview)).map(\.utensil) == sorted(published).map(\.utensil))
        #expect(Set(try await storage.listStaged()) == [fresh, rethumb])
        let reopened = try await opened.reopened()
        #expect(Set(try await reopened.listStaged()) == [fresh, rethumb])
    }

    static func absence(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let key = RenditionKey(.preview, of: UUID(), originalExtension: "png")
        await #expect(throws: StorageError.notFound(key)) { try await storage.read(key, range: 0..<10) }
        await #expect(throws: StorageError.notFound(key)) { try await storage.size(of: key) }
    }

    static func originalLast(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let id = UUID()
        let thumbnailOnly = try await storage.stage([.thumbnail: [1, 2]], of: id, originalExtension: "png")
        try await storage.makeDurable([thumbnailOnly])
        try await storage.publish(thumbnailOnly)

        let whole = try await storage.stage(Self.renditions(8), of: id, originalExtension: "png")
        try await storage.makeDurable([whole])
        await #expect(throws: StorageError.alreadyLive(whole.key(.thumbnail))) { try await storage.publish(whole) }
        #expect(try await storage.list(.preview) == [whole.key(.preview)], "the preview went first")
        #expect(try await storage.list(.original).isEmpty, "no live original without its thumbnail")
        #expect(try await storage.read(whole.key(.thumbnail), range: nil) == [1, 2])
        let left = try await storage.listStaged()
        #expect(left.map(\.operation) == [whole.operation])
        #expect(left.first?.renditions == [.thumbnail, .original])
    }

    static func gridSquare(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let id = UUID()
        // A utensil from before grid squares: its original, thumbnail and preview alone.
        let old = try await storage.stage(
            Self.renditions(1).filter { $0.key != .square }, of: id, originalExtension: "jpeg")
        try await storage.makeDurable([old])
        try await storage.publish(old)
        let key = old.key(.square)
        await #expect(throws: StorageError.notFound(key)) { try await storage.size(of: key) }
        #expect(try await storage.list(.square).isEmpty)

        // Its square made later (a rethumb), published before the thumbnail it goes with.
        let stopped = try await storage.stage([.square: [5, 6, 7], .thumbnail: [1]], of: id, originalExtension: "jpeg")
        try await storage.makeDurable([stopped])
        await #expect(throws: StorageError.alreadyLive(stopped.key(.thumbnail))) { try await storage.publish(stopped) }
        #expect(try await storage.list(.square) == [key], "the square went first")
        #expect(try await storage.read(key, range: 1..<3) == [6, 7])
        #expect(try await storage.status(of: key).size == 3)
        try await storage.discard(stopped)

        // A square is never replaced in place either; it is deleted, then the new one published.
        let again = try await storage.stage([.square: [8]], of: id, originalExtension: "jpeg")
        try await storage.makeDurable([again])
        await #expect(throws: StorageError.alreadyLive(key)) { try await storage.publish(again) }
        try await storage.delete(key)
        try await storage.publish(again)
        #expect(try await opened.reopened().read(key, range: nil) == [8])

        // A delete takes it out with the rest.
        let out = try await storage.unpublish(Rendition.allCases.map(old.key))
        #expect(out.renditions == Set(Rendition.allCases))
        try await storage.discard(out)
        for rendition in Rendition.allCases {
            #expect(try await storage.list(rendition).isEmpty)
        }
        #expect(storage.url(of: key).hasSuffix("squares/\(id.uuidString).jpeg"))
    }

    static func newUtensil(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let bytes = Self.renditions(4)
        let kept = try await storage.stageNew(bytes, of: UUID(), originalExtension: "png")
        #expect(kept.renditions == Set(Rendition.allCases))
        try await storage.makeDurable([kept])
        // Before the commit: staged, or (a storage that puts a new utensil straight under its
        // live keys) there already: either way a crash leaves it listed for recovery.
        let afterCrash = try await opened.reopened()
        if kept.isPlacedLive {
            let listed = try await afterCrash.listStaged()
            #expect(listed.map(\.operation) == [kept.operation])
            #expect(listed.allSatisfy { $0.isPlacedLive && $0.utensil == kept.utensil && $0.originalExtension == "png" })
            #expect(listed.allSatisfy { $0.renditions.isSuperset(of: kept.renditions) })
            #expect(try await afterCrash.list(.original) == [kept.key(.original)])
        } else {
            #expect(try await afterCrash.listStaged() == [kept])
            #expect(try await afterCrash.list(.original).isEmpty)
        }
        try await storage.publish(kept)
        #expect(try await storage.listStaged().isEmpty)
        for rendition in Rendition.allCases {
            #expect(try await storage.read(kept.key(rendition), range: nil) == bytes[rendition])
            #expect(try await storage.list(rendition) == [kept.key(rendition)])
        }

        // Not committed: discarded, twice, nothing of it is left, live or staged; so too when
        // the discard is of the operation as a crash leaves it listed.
        let refused = try await storage.stageNew(Self.renditions(5), of: UUID(), originalExtension: "jpeg")
        try await storage.makeDurable([refused])
        try await storage.discard(refused)
        try await storage.discard(refused)
        #expect(try await storage.listStaged().isEmpty)
        _ = try await storage.stageNew(Self.renditions(6), of: UUID(), originalExtension: "jpeg")
        for leftover in try await opened.reopened().listStaged() { try await storage.discard(leftover) }
        #expect(try await storage.listStaged().isEmpty)
        for rendition in Rendition.allCases {
            #expect(try await storage.list(rendition) == [kept.key(rendition)], "only the published utensil's")
            await #expect(throws: StorageError.notFound(refused.key(rendition))) { try await storage.size(of: refused.key(rendition)) }
        }
    }

    static func newUtensilBegun(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let bytes = Self.renditions(8)
        var others = bytes
        others[.original] = nil
        let original = bytes[.original]!
        let maybeBegun = try await storage.beginNew(original: original, sha256: Self.sha256(original), of: UUID(), originalExtension: "png")
        #expect((maybeBegun != nil) == storage.beginsNewAhead, "beginsNewAhead says whether anything is begun")
        guard let begun = maybeBegun else {
            return  // A storage that stages the original with the rest: nothing was begun.
        }
        #expect(begun.isPlacedLive && begun.renditions == [.original])
        // A crash before the rest: the operation is listed for recovery, with all it may have put.
        let listed = try await opened.reopened().listStaged()
        #expect(listed.map(\.operation) == [begun.operation])
        #expect(listed.allSatisfy { $0.isPlacedLive && $0.renditions.isSuperset(of: Set(Rendition.allCases)) })

        let kept = try await storage.stageNew(others, joining: begun)
        #expect(kept.operation == begun.operation && kept.renditions == Set(Rendition.allCases))
        try await storage.makeDurable([kept])
        try await storage.publish(kept)
        #expect(try await storage.listStaged().isEmpty)
        for rendition in Rendition.allCases {
            #expect(try await storage.read(kept.key(rendition), range: nil) == bytes[rendition])
        }

        // One whose drop is refused: discarding what was begun leaves nothing, live or staged.
        let other = Self.renditions(9)[.original]!
        let refused = try await storage.beginNew(original: other, sha256: Self.sha256(other), of: UUID(), originalExtension: "jpeg")
        try await storage.discard(try #require(refused))
        #expect(try await storage.listStaged().isEmpty)
        for rendition in Rendition.allCases {
            #expect(try await storage.list(rendition) == [kept.key(rendition)], "only the published utensil's")
        }
    }

    /// Lower-case hex SHA-256 of `bytes`, as the catalog records a photo's.
    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
