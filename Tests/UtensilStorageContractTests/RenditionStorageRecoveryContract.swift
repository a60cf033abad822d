import Foundation
import Testing
import UtensilCore
import UtensilStorage

/// The promises of ``RenditionStorage`` that a delete and start-up recovery build on: live
/// renditions taken out into a staged operation (and put back, or discarded), a staged
/// original read back, and what was published made durable.
extension RenditionStorageContract {
    static let recovery: [StorageContractClause] = [
        .init("unpublish takes live renditions out, durably; publish puts them back", unpublishThenPublishBack),
        .init("unpublish passes over what is not there; a discard then removes the rest for good", unpublishWhatIsThereThenDiscard),
        .init("a staged rendition is read back until it is published or discarded", readStaged),
    ]

    /// A utensil published with an original of type `png`, a thumbnail and a preview.
    static func published(in storage: any RenditionStorage) async throws -> (StagedRenditions, [Rendition: [UInt8]]) {
        let bytes = renditions(3)
        let staged = try await storage.stage(bytes, of: UUID(), originalExtension: "png")
        try await storage.makeDurable([staged])
        try await storage.publish(staged)
        return (staged, bytes)
    }

    static func unpublishThenPublishBack(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let (live, bytes) = try await Self.published(in: storage)
        let keys = Rendition.allCases.map(live.key)

        let out = try await storage.unpublish(keys.reversed())
        #expect(out.utensil == live.utensil && out.operation != live.operation)
        #expect(out.originalExtension == "png" && out.renditions == Set(Rendition.allCases))
        for key in keys {
            await #expect(throws: StorageError.notFound(key)) { try await storage.size(of: key) }
        }
        // Durable: a storage opened afresh (the daemon after a crash) finds them staged.
        let afterCrash = try await opened.reopened()
        #expect(try await afterCrash.listStaged() == [out])
        #expect(try await afterCrash.readStaged(.original, of: out) == bytes[.original])

        try await afterCrash.publish(out)
        for key in keys {
            #expect(try await storage.read(key, range: nil) == bytes[key.rendition])
        }
        #expect(try await storage.listStaged().isEmpty)
    }

    static func unpublishWhatIsThereThenDiscard(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let (live, _) = try await Self.published(in: storage)
        try await storage.delete(live.key(.preview))

        let out = try await storage.unpublish(Rendition.allCases.map(live.key))
        #expect(out.renditions == [.original, .thumbnail, .square])
        try await storage.discard(out)
        #expect(try await storage.listStaged().isEmpty)
        for rendition in Rendition.allCases {
            #expect(try await storage.list(rendition).isEmpty)
        }
        let none = try await storage.unpublish([live.key(.original)])
        #expect(none.renditions.isEmpty)
    }

    static func readStaged(_ opened: OpenedStorage) async throws {
        let storage = opened.storage
        let bytes = renditions(5)
        let staged = try await storage.stage([.original: bytes[.original]!], of: UUID(), originalExtension: "jpeg")
        #expect(try await storage.readStaged(.original, of: staged) == bytes[.original])
        await #expect(throws: StorageError.notStaged(staged.key(.thumbnail))) {
            try await storage.readStaged(.thumbnail, of: staged)
        }
        try await storage.makeDurable([staged])
        try await storage.publish(staged)
        try await storage.makeChangesDurable()
        await #expect(throws: StorageError.notStaged(staged.key(.original))) {
            try await storage.readStaged(.original, of: staged)
        }
        #expect(try await opened.reopened().read(staged.key(.original), range: nil) == bytes[.original])
    }
}
