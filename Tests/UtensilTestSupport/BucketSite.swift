import Foundation

/// Where a test of the real daemon over a bucket starts: a private SeaweedFS (``server``), a
/// fresh ``world`` and a credentials file of the server's keys in it (``keys``). ``flags`` put
/// the world's renditions under `site/` in the server's bucket. ``remove()`` removes the world,
/// then stops the server and removes its folder.
public struct BucketSite: Sendable {
    public let server: SeaweedServer
    public let world: TestWorld
    /// The credentials file with the server's keys (private to the test's user).
    public let keys: String

    /// Starts the server (its keys allowed `actions`, SeaweedFS's names), makes the world and
    /// writes the keys into it.
    public init(actions: [String] = SeaweedServer.allActions) async throws {
        // Should anything below throw, the server is stopped when its last reference goes.
        let server = try await SeaweedServer(actions: actions)
        let world = try TestWorld()
        do {
            keys = try Self.writeKeys(world, name: "storage-keys", id: server.credentials.accessKeyID, secret: server.credentials.secretAccessKey)
        } catch {
            world.remove()
            throw error
        }
        self.server = server
        self.world = world
    }

    /// The flags that put the world's renditions under `site/` in the server's bucket.
    public var flags: [String] { flags(keys: keys) }

    /// The flags that put the world's renditions under `site/` in `bucket` (else the server's),
    /// through `endpoint` (else the server's), with the credentials file `keys` (nil: none named).
    public func flags(bucket: String? = nil, endpoint: String? = nil, keys: String?) -> [String] {
        ["--storage", "s3://\(bucket ?? server.bucket)/site", "--storage-endpoint", endpoint ?? server.endpoint]
            + (keys.map { ["--storage-credentials-file", $0] } ?? [])
    }

    /// Writes another credentials file into the world, `name`, with the server's key id and
    /// `secret`; returns its path.
    public func writeKeys(name: String, secret: String) throws -> String {
        try Self.writeKeys(world, name: name, id: server.credentials.accessKeyID, secret: secret)
    }

    public func remove() {
        world.remove()
        server.remove()
    }

    private static func writeKeys(_ world: TestWorld, name: String, id: String, secret: String) throws -> String {
        let path = world.root.appendingPathComponent(name).path
        let text = "# test keys\nAWS_ACCESS_KEY_ID=\(id)\nAWS_SECRET_ACCESS_KEY=\(secret)\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestFailure("could not write the credentials file \(path)")
        }
        return path
    }
}
