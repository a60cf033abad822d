import Foundation
import Testing
import UtensilIngest
import UtensilStore

/// The state folder's lock: one process per state folder with a catalog of its own, one per
/// host name with a shared one.
@Suite struct StateLockTests {
    @Test func aSecondProcessOnTheSameStateFolderIsRefusedWithTheHoldersPid() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        Self.holding(try StateLock(stateDirectory: folder)) {
            // flock(2) locks belong to the open file: a second open, even in this process, is refused.
            let refusal = #expect(throws: StateLockError.self) { try StateLock(stateDirectory: folder) }
            #expect(refusal?.description.contains("(pid \(getpid()))") == true, "\(String(describing: refusal))")
        }
        _ = try StateLock(stateDirectory: folder)  // Released with the first.
    }

    @Test func hostsSharingACatalogEachLockTheirOwnNameInOneStateFolder() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try StateLock(stateDirectory: folder, sharedAs: "kitchen-1")
        let second = try StateLock(stateDirectory: folder, sharedAs: "kitchen-2")
        #expect(FileManager.default.fileExists(atPath: folder + "/utensild-kitchen-1.lock"))
        #expect(FileManager.default.fileExists(atPath: folder + "/utensild-kitchen-2.lock"))
        let refusal = #expect(throws: StateLockError.self) { try StateLock(stateDirectory: folder, sharedAs: "kitchen-1") }
        #expect(refusal?.description.contains("another host_name") == true, "\(String(describing: refusal))")
        withExtendedLifetime((first, second)) {}
    }

    private static func holding(_ lock: StateLock, _ body: () throws -> Void) rethrows {
        try withExtendedLifetime(lock) { try body() }
    }

    private static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("statelock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }
}

/// The names of a host's own files in the state folder.
@Suite struct HostFileNamesTests {
    @Test func aStateFolderOfItsOwnKeepsTheNamesOfOneHost() {
        let files = HostFileNames(sharedAs: nil)
        #expect([files.lock, files.decodingSlots, files.lastStop] == ["utensild.lock", "decoding.slots", "last-stop"])
    }

    @Test func aSharedStateFolderNamesEachHostsFilesAfterIt() {
        let files = HostFileNames(sharedAs: "kitchen-1")
        #expect([files.lock, files.decodingSlots, files.lastStop]
            == ["utensild-kitchen-1.lock", "decoding-kitchen-1.slots", "last-stop-kitchen-1"])
    }
}
