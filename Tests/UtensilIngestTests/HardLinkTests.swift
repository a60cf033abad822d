import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
@testable import UtensilIngest
import UtensilTestSupport

/// A hard link to a photo already ingested has the same device, inode, size and mtime as the
/// committed row's file, but it is another name: a new drop under the duplicate rules, not
/// the "committed just before a crash" case (which is the same file at the same inbox path).
@Suite("Hard links")
struct HardLinkTests {
    let world: TestWorld

    init() throws { world = try TestWorld() }

    /// Drops a photo as `Spoon.jpg` with a hard link to it at `Holiday/Spoon copy.jpg`, and
    /// ingests `Spoon.jpg`.
    private func ingestTheFirstName(with engine: IngestEngine) throws -> Data {
        let bytes = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("a").path, seed: 4)])[0]
        let first = try world.drop("Spoon.jpg", bytes)
        let link = world.inbox.appendingPathComponent("Holiday/Spoon copy.jpg")
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(Glibc.link(first.path, link.path) == 0)
        guard case .ingested = try world.ingest("Spoon.jpg", with: engine) else {
            Issue.record("the first name was not ingested")
            return bytes
        }
        return bytes
    }

    @Test func aHardLinkToAnIngestedPhotoIsRejectedAsDuplicateContent() throws {
        defer { world.remove() }
        let engine = try world.engine()
        let bytes = try ingestTheFirstName(with: engine)
        guard case .rejected(let rejection, let rejectedAs) = try world.ingest("Holiday/Spoon copy.jpg", with: engine) else {
            Issue.record("the hard link was not rejected")
            return
        }
        #expect(rejection.reason == .duplicateContent)
        #expect(try world.sidecar(for: rejectedAs)["inboxPath"] as? String == "Holiday/Spoon copy.jpg")
        try InvariantChecker(world: world).verify(inputs: [bytes, bytes], inbox: .mustBeEmpty)
    }

    @Test func withDuplicateContentAllowedAHardLinkIsASecondUtensil() throws {
        defer { world.remove() }
        let engine = try world.engine(world.settings(rejectDuplicateContent: false))
        let bytes = try ingestTheFirstName(with: engine)
        guard case .ingested(let record) = try world.ingest("Holiday/Spoon copy.jpg", with: engine) else {
            Issue.record("the hard link was not ingested")
            return
        }
        #expect(record.name == "Spoon copy")
        #expect(try SQLiteCatalog(path: world.settings().catalogPath).count() == 2)
        try InvariantChecker(world: world).verify(inputs: [bytes, bytes], inbox: .mustBeEmpty)
    }
}
