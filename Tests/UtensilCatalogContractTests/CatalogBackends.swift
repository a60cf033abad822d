import Foundation
import UtensilCatalogSQLite
import UtensilCatalogModel

/// Every catalog backend the contract is checked against. A new backend is one more line
/// here (and its target in this test target's dependencies).
enum CatalogBackends {
    static let all: [BackendUnderTest] = [.sqlite, .postgres]
}

/// A catalog backend under test: how to open a fresh, empty catalog of it.
struct BackendUnderTest: Sendable, CustomStringConvertible {
    let description: String
    /// Opens a new, empty catalog; the test calls `remove` of what it returns when done.
    let open: @Sendable () async throws -> OpenedCatalog
}

/// A fresh catalog for one test.
struct OpenedCatalog: Sendable {
    /// The catalog the test works on.
    let backend: any CatalogBackend
    /// A second, independent handle on the same catalog (another connection, as another
    /// process or host would hold).
    let another: @Sendable () async throws -> any CatalogBackend
    /// Removes the catalog and whatever it left behind.
    let remove: @Sendable () async -> Void
}

extension BackendUnderTest {
    /// A SQLite catalog in a temporary folder.
    static let sqlite = BackendUnderTest(description: "SQLite") {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("utensils.sqlite").path
        return OpenedCatalog(
            backend: try SQLiteCatalog(path: path),
            another: { try SQLiteCatalog(path: path) },
            remove: { try? FileManager.default.removeItem(at: folder) })
    }

    /// Runs `body` on a fresh catalog of this backend, removing it afterwards.
    func check(_ body: (OpenedCatalog) async throws -> Void) async throws {
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
