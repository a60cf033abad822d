import Foundation
import UtensilCore
import UtensilStorage
import UtensilStorageS3
import UtensilTestSupport

/// The rendition storages the contract is checked against in-process, by
/// ``LocalStorageContractTests`` (`make check` runs it). A new storage is one more line here,
/// or in ``ServerStorageBackends`` when it needs a server (and its target in this test
/// target's dependencies).
enum StorageBackends {
    static let inProcess: [StorageUnderTest] = [.localFolder]
}

/// The rendition storages the contract is checked against on a server the test starts, by
/// ``S3StorageContractTests`` (tagged `.spawnsProcesses`: `make test` runs it). Kept out of
/// ``StorageUnderTest`` so that `scripts/list-suites --check` sees only the suites using these
/// as spawning processes.
enum ServerStorageBackends {
    static let all: [StorageUnderTest] = [s3]

    /// A bucket of a private SeaweedFS (``SeaweedServer``), under a prefix, for host `kitchen-1`.
    static let s3 = StorageUnderTest(description: "S3 (SeaweedFS)") {
        let server = try await SeaweedServer()
        do {
            let location = S3Location(bucket: server.bucket, prefix: "site/photos")
            let storage = S3Storage(client: try server.client(), location: location, hostName: "kitchen-1")
            try await storage.prepare()
            return OpenedStorage(
                storage: storage,
                reopened: { S3Storage(client: try server.client(), location: location, hostName: "kitchen-1") },
                remove: { server.remove() })
        } catch {
            server.remove()
            throw error
        }
    }
}

/// A rendition storage under test: how to open a fresh, empty one of it.
struct StorageUnderTest: Sendable, CustomStringConvertible {
    let description: String
    /// Opens a new, empty storage; the test calls `remove` of what it returns when done.
    let open: @Sendable () async throws -> OpenedStorage
}

/// A fresh storage for one test.
struct OpenedStorage: Sendable {
    /// The storage the test works on, prepared.
    let storage: any RenditionStorage
    /// A second, independent handle on the same storage, as the daemon holds after a restart.
    let reopened: @Sendable () async throws -> any RenditionStorage
    /// Removes the storage and whatever it left behind.
    let remove: @Sendable () async -> Void
}

extension StorageUnderTest {
    /// `state_dir` in a temporary folder.
    static let localFolder = StorageUnderTest(description: "local folder") {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-contract-\(UUID().uuidString)")
        let layout = StateLayout(stateDirectory: RawPath(folder.path))
        let storage = LocalFolderStorage(layout: layout, hostName: "kitchen-1")
        try await storage.prepare()
        return OpenedStorage(
            storage: storage,
            reopened: { LocalFolderStorage(layout: layout, hostName: "kitchen-1") },
            remove: { try? FileManager.default.removeItem(at: folder) })
    }

    /// Runs `body` on a fresh storage of this kind, removing it afterwards.
    func check(_ body: @Sendable (OpenedStorage) async throws -> Void) async throws {
        let opened = try await open()
        do {
            try await body(opened)
        } catch {
            await opened.remove()
            throw error
        }
        await opened.remove()
    }
}
