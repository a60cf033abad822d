import Crypto
import Foundation
import Synchronization
import UtensilCore
import UtensilStorage

/// The storage seam (``RenditionStorage``) kept in an S3-compatible bucket, for hosts that share
/// nothing but the catalog and the bucket.
///
/// Keys, under the location's prefix:
/// - live renditions: `originals/<UUID>.<ext>`, `thumbnails/<UUID>.jpeg`, `previews/<UUID>.jpeg`,
///   `squares/<UUID>.jpeg` (the folders of ``StateLayout``);
/// - staged ones: `staging/<host_name>/<UUID>.<operation>.<rendition>.<ext>` (``StagedName``),
///   one folder per host, so that each host's recovery lists only its own operations.
///
/// How it keeps the protocol's promises:
/// - a staged object is never live: no live key begins with `staging/`, and ``list(_:)`` and
///   ``read(_:range:)`` look only at live keys;
/// - staged objects are durable when ``stage(_:of:originalExtension:)`` returns (an S3 PUT is
///   durable once answered), so ``makeDurable(_:)`` and ``makeChangesDurable()`` do nothing; a
///   crash leaves them under `staging/<host_name>/`, which ``listStaged()`` lists;
/// - ``publish(_:)`` copies each staged object to its live key with a create-only PUT
///   (`If-None-Match: *`), never over a live object, then deletes the staged one. A live object
///   with the very bytes staged (by MD5) is taken for this operation's own publish stopped
///   between the two requests, and the staged one is deleted; any other live object is
///   ``StorageError/alreadyLive(_:)``. Not CopyObject: a conditional copy is not supported by
///   every S3-compatible server;
/// - a new utensil's renditions (``stageNew(_:of:originalExtension:)``: an id no row and no
///   live object has) are put straight under their live keys, create-only, in the publishing
///   order: one PUT each, where a staged one costs a PUT, a GET, a PUT and a DELETE. No reader
///   asks for them before their row commits. An empty marker (``PlacedLiveMarker``,
///   `staging/<host_name>/<UUID>.<operation>.new.<ext>`) is put before them and deleted by
///   ``publish(_:)`` after the commit, or by ``discard(_:)`` after them: what a crash in between
///   leaves is in ``listStaged()`` as an ``StagedRenditions/isPlacedLive`` operation, which the
///   host's next start (or the sweeper, for a host that never starts again) finishes or undoes;
/// - deletes of what is gone are fine (S3's DELETE is idempotent).
///
/// Failures of the server are ``StorageError/objectStorage(_:)``: unreachable or failing
/// (transient: retry later), credentials refused, bucket missing.
public struct S3Storage: RenditionStorage {
    public let client: S3Client
    public let location: S3Location
    /// This host's `host_name`: its folder of staged objects.
    public let hostName: String
    /// How long a streamed read (``stream(_:range:into:)``) may stand still, its reader not
    /// taking the next chunk or the server not sending it, before its GET is given up.
    public var streamStallLimit: Duration = .seconds(30)
    /// Thumbnails and grid squares kept in memory (``S3RenditionCache``), shared by this
    /// storage's copies (``forProbes()``, ``asHost(_:)``).
    public let cache: S3RenditionCache
    /// New utensils' operations whose removal failed (the server stopped answering): removed
    /// once it answers again (``markedNew(of:originalExtension:)``).
    private let owed = OwedDiscards()

    public init(client: S3Client, location: S3Location, hostName: String, cache: S3RenditionCache = S3RenditionCache()) {
        self.client = client
        self.location = location
        self.hostName = hostName
        self.cache = cache
    }

    /// The live key of `key`.
    public func objectKey(_ key: RenditionKey) -> String {
        location.prefix + StateLayout.folderName(of: key.rendition) + "/" + key.fileName
    }

    /// `s3://BUCKET/KEY` of a live rendition, as the JSON names it.
    public func url(of key: RenditionKey) -> String {
        location.url(of: objectKey(key))
    }

    private var stagingPrefix: String { location.prefix + StateLayout.stagingFolderName + "/" + hostName + "/" }

    private func markerKey(_ operation: StagedRenditions) -> String {
        stagingPrefix + PlacedLiveMarker(of: operation).name
    }

    private func stagedKey(_ operation: StagedRenditions, _ rendition: Rendition) -> String {
        let name = StagedName(
            utensil: operation.utensil, operation: operation.operation, rendition: rendition,
            fileExtension: rendition.fileExtension(original: operation.originalExtension))
        return stagingPrefix + String(decoding: name.bytes, as: UTF8.self)
    }

    // MARK: RenditionStorage

    /// Checks that the bucket is there and takes our credentials; the bucket itself is never
    /// created here (a missing bucket is a configuration to fix).
    public func prepare() async throws(StorageError) {
        try await mapped { () throws(S3Error) in try await client.checkBucket() }
    }

    public func stage(
        _ renditions: [Rendition: [UInt8]], of utensil: UUID, originalExtension: String
    ) async throws(StorageError) -> StagedRenditions {
        let operation = StagedRenditions(
            utensil: utensil, operation: UUID(), originalExtension: originalExtension, renditions: Set(renditions.keys))
        var put: [String] = []
        do throws(S3Error) {
            for rendition in Rendition.allCases {
                guard let bytes = renditions[rendition] else { continue }
                let key = stagedKey(operation, rendition)
                try await client.put(key, bytes, createOnly: true, contentType: Self.contentType(rendition, operation.originalExtension))
                put.append(key)
            }
        } catch {
            for key in put { try? await client.delete(key) }
            throw Self.storageError(error)
        }
        return operation
    }

    /// Puts the operation's marker, then the renditions under their live keys, all at once and
    /// create-only (see above); what it put is discarded again when one fails, the marker last
    /// (``discard(_:)``: what the server does not let it remove is removed once it answers
    /// again). An object already there is taken as this operation's own only if it holds the
    /// very bytes (a PUT answered too late and sent again).
    public func stageNew(
        _ renditions: [Rendition: [UInt8]], of utensil: UUID, originalExtension: String
    ) async throws(StorageError) -> StagedRenditions {
        let marked = try await markedNew(of: utensil, originalExtension: originalExtension)
        return try await putNew(renditions, of: marked)
    }

    /// True: a new utensil's original goes up while its photo decodes.
    public var beginsNewAhead: Bool { true }

    /// The marker, then the original alone (``stageNew(_:of:originalExtension:)``'s first part):
    /// its upload, the largest, overlaps the making of the other renditions. The server checks
    /// the original against `sha256`, the digest the catalog records of it.
    public func beginNew(original: [UInt8], sha256: String, of utensil: UUID, originalExtension: String) async throws(StorageError) -> StagedRenditions? {
        let marked = try await markedNew(of: utensil, originalExtension: originalExtension)
        return try await putNew([.original: original], of: marked, sha256: [.original: Self.bytes(ofHex: sha256)])
    }

    /// The others, all at once, under the operation that put the original; the original is
    /// discarded with them when one fails.
    public func stageNew(_ renditions: [Rendition: [UInt8]], joining begun: StagedRenditions) async throws(StorageError) -> StagedRenditions {
        return try await putNew(renditions, of: begun)
    }

    /// The bytes `hex` spells (two lower- or upper-case digits a byte); nil when it spells none.
    static func bytes(ofHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// A new operation on a new utensil, placed live, its marker put. The server answering
    /// again, what earlier operations could not remove is removed first.
    private func markedNew(of utensil: UUID, originalExtension: String) async throws(StorageError) -> StagedRenditions {
        let operation = StagedRenditions(
            utensil: utensil, operation: UUID(), originalExtension: originalExtension, renditions: [], isPlacedLive: true)
        try await mapped { () throws(S3Error) in try await client.put(markerKey(operation), []) }
        for leftover in owed.takeAll() {
            try? await discard(leftover)
        }
        return operation
    }

    /// Puts `renditions` of the marked operation `operation` under their live keys, all at once,
    /// and returns the operation with them added. When one fails, the whole operation (what it
    /// had already, what this call put, then the marker) is discarded (``discard(_:)``), and the
    /// failure thrown.
    /// `sha256`: the digests known already of some of them.
    private func putNew(
        _ renditions: [Rendition: [UInt8]], of operation: StagedRenditions, sha256: [Rendition: [UInt8]?] = [:]
    ) async throws(StorageError) -> StagedRenditions {
        let adding = operation.keeping(operation.renditions.union(renditions.keys))
        // The renditions go up at once, not one after another: no row names them yet, so no
        // reader can see one without the others, and an ingest waits for the largest alone.
        let failures = await withTaskGroup(of: (Rendition, StorageError?).self) { group in
            for rendition in adding.publishingOrder {
                guard let bytes = renditions[rendition] else { continue }
                group.addTask {
                    do throws(StorageError) {
                        try await putNew(
                            adding.key(rendition), bytes, contentType: Self.contentType(rendition, adding.originalExtension),
                            sha256: sha256[rendition] ?? nil)
                        return (rendition, nil)
                    } catch {
                        return (rendition, error)
                    }
                }
            }
            var failures: [Rendition: StorageError] = [:]
            for await (rendition, failure) in group { failures[rendition] = failure }
            return failures
        }
        if let failed = adding.publishingOrder.first(where: { failures[$0] != nil }), let error = failures[failed] {
            let put = operation.renditions.union(renditions.keys.filter { failures[$0] == nil })
            try? await discard(operation.keeping(put))
            throw error
        }
        return adding
    }

    /// Puts `bytes` under `live`'s key, never over another object: one there already is taken
    /// only if it holds exactly these bytes (a retried put that had gone through).
    private func putNew(_ live: RenditionKey, _ bytes: [UInt8], contentType: String, sha256: [UInt8]? = nil) async throws(StorageError) {
        do throws(S3Error) {
            try await client.put(objectKey(live), bytes, createOnly: true, contentType: contentType, sha256: sha256)
        } catch .alreadyExists {
            guard try await isLive(live, holding: bytes) else { throw .alreadyLive(live) }
        } catch {
            throw Self.storageError(error)
        }
    }

    /// Nothing to do: staged objects are durable once put.
    public func makeDurable(_ operations: [StagedRenditions]) async throws(StorageError) {}

    /// Renditions put under their live keys (``stageNew(_:of:originalExtension:)``) are live
    /// already: only their marker is deleted.
    public func publish(_ operation: StagedRenditions) async throws(StorageError) {
        guard !operation.isPlacedLive else {
            return try await mapped { () throws(S3Error) in try await client.delete(markerKey(operation)) }
        }
        for rendition in operation.publishingOrder {
            let live = operation.key(rendition)
            let staged = stagedKey(operation, rendition)
            let bytes: [UInt8]
            do throws(S3Error) {
                bytes = try await client.get(staged)
            } catch .noSuchKey {
                throw .notStaged(live)
            } catch {
                throw Self.storageError(error)
            }
            do throws(S3Error) {
                try await client.put(objectKey(live), bytes, createOnly: true, contentType: Self.contentType(rendition, operation.originalExtension))
            } catch .alreadyExists {
                guard try await isLive(live, holding: bytes) else { throw .alreadyLive(live) }
            } catch {
                throw Self.storageError(error)
            }
            cache.drop(live)
            try await mapped { () throws(S3Error) in try await client.delete(staged) }
        }
    }

    /// Renditions put under their live keys (``stageNew(_:of:originalExtension:)``) are deleted
    /// there, in publishing order, then their marker. A delete that fails stops it and is thrown:
    /// the marker stays, for recovery to find, and this storage deletes them again before the
    /// next new utensil's objects go up, once the server answers (an outage leaves nothing
    /// behind for long, rather than until the host's next start or the sweeper).
    public func discard(_ operation: StagedRenditions) async throws(StorageError) {
        if operation.isPlacedLive {
            do throws(StorageError) {
                for rendition in operation.publishingOrder {
                    try await delete(operation.key(rendition))
                }
                return try await mapped { () throws(S3Error) in try await client.delete(markerKey(operation)) }
            } catch {
                owed.add(operation)
                throw error
            }
        }
        for rendition in Rendition.allCases where operation.renditions.contains(rendition) {
            let key = stagedKey(operation, rendition)
            try await mapped { () throws(S3Error) in try await client.delete(key) }
        }
    }

    public func size(of key: RenditionKey) async throws(StorageError) -> Int64 {
        let head = try await mapped { () throws(S3Error) in try await client.head(objectKey(key)) }
        guard let head else { throw .notFound(key) }
        return head.size
    }

    /// The version is the object's ETag (unquoted): a replaced object has another. A thumbnail
    /// or a grid square is read whole with one GET and kept (``S3RenditionCache``).
    public func status(of key: RenditionKey) async throws(StorageError) -> RenditionStatus {
        try await status(of: key, askedAs: nil)
    }

    /// ``status(of:)``; a kept thumbnail or grid square asked under another name than it was
    /// read for (a `?v=` that changed: replaced on another host) is read again.
    public func status(of key: RenditionKey, askedAs version: String?) async throws(StorageError) -> RenditionStatus {
        if S3RenditionCache.kept.contains(key.rendition) { return try await cached(key, askedAs: version).status }
        let head = try await mapped { () throws(S3Error) in try await client.head(objectKey(key)) }
        guard let head else { throw .notFound(key) }
        return RenditionStatus(size: head.size, version: head.etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
    }

    public func read(_ key: RenditionKey, range: Range<Int64>?) async throws(StorageError) -> [UInt8] {
        do throws(S3Error) {
            guard let range else { return try await client.get(objectKey(key)) }
            guard !range.isEmpty else {
                guard try await client.head(objectKey(key)) != nil else { throw S3Error.noSuchKey(objectKey(key)) }
                return []
            }
            return try await client.get(objectKey(key), range: range.lowerBound...(range.upperBound - 1))
        } catch .noSuchKey {
            throw .notFound(key)
        } catch {
            throw Self.storageError(error)
        }
    }

    /// One GET for the whole rendition or range, its body passed on as it arrives (see
    /// ``S3BodyPump``): no round trip per chunk, no object held whole.
    public func stream(_ key: RenditionKey, range: Range<Int64>?, into consume: ([UInt8]) async throws -> Void) async throws {
        if let held = cache.entry(key) {
            let whole = Int64(held.bytes.count)
            let part = range.map { min($0.lowerBound, whole)..<min($0.upperBound, whole) } ?? 0..<whole
            try await consume(Array(held.bytes[Int(part.lowerBound)..<Int(part.upperBound)]))
            return
        }
        if let range, range.isEmpty {
            _ = try await read(key, range: range)
            return
        }
        let object: S3Client.ObjectStream?
        do throws(S3Error) {
            object = try await client.stream(objectKey(key), range: range.map { $0.lowerBound...($0.upperBound - 1) }, forSlowReader: true)
        } catch {
            throw Self.storageError(error)
        }
        guard let object else { throw StorageError.notFound(key) }
        var skip: Int64 = 0, limit = object.length
        if let range {
            // A server that ignored the Range sent the whole object: cut the range out of it.
            if object.length == object.size, object.size > range.upperBound - range.lowerBound { skip = range.lowerBound }
            limit = max(0, min(range.upperBound, object.size) - range.lowerBound)
        }
        let pump = S3BodyPump(stallLimit: streamStallLimit, endpoint: client.endpoint, key: objectKey(key))
        do {
            try await pump.pump(object.body, skip: skip, limit: limit, into: consume)
        } catch let error as S3Error {
            throw Self.storageError(error)
        }
    }

    public func readStaged(_ rendition: Rendition, of operation: StagedRenditions) async throws(StorageError) -> [UInt8] {
        do throws(S3Error) {
            return try await client.get(operation.isPlacedLive ? objectKey(operation.key(rendition)) : stagedKey(operation, rendition))
        } catch .noSuchKey {
            throw .notStaged(operation.key(rendition))
        } catch {
            throw Self.storageError(error)
        }
    }

    public func delete(_ key: RenditionKey) async throws(StorageError) {
        cache.drop(key)
        try await mapped { () throws(S3Error) in try await client.delete(objectKey(key)) }
        cache.drop(key)
    }

    /// `key`'s size, version and bytes from the cache, or from one GET then kept; its absence
    /// too (``StorageError/notFound(_:)``, without a GET while the cache remembers it).
    private func cached(_ key: RenditionKey, askedAs version: String?) async throws(StorageError) -> (status: RenditionStatus, bytes: [UInt8]) {
        if let held = cache.entry(key, askedAs: version) { return held }
        if cache.isAbsent(key, askedAs: version) { throw .notFound(key) }
        let generation = cache.generation()
        let object: S3Client.ObjectStream?
        do throws(S3Error) {
            object = try await client.stream(objectKey(key), range: nil)
        } catch {
            throw Self.storageError(error)
        }
        guard let object else {
            cache.keepAbsent(key, askedAs: version, since: generation)
            throw .notFound(key)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(object.length))
        let pump = S3BodyPump(stallLimit: streamStallLimit, endpoint: client.endpoint, key: objectKey(key))
        do {
            try await pump.pump(object.body, skip: 0, limit: object.length) { bytes += $0 }
        } catch let error as S3Error {
            throw Self.storageError(error)
        } catch {
            throw Self.storageError(.unreachable(endpoint: client.endpoint, reason: "GET \(objectKey(key)): \(error)"))
        }
        // Checked against a single-part upload's ETag (its MD5), as a whole GET is, before it is kept.
        if object.etag.count == 32, !object.etag.contains("-") {
            let actual = SigV4Signer.hex(Insecure.MD5.hash(data: bytes))
            guard actual == object.etag.lowercased() else {
                throw Self.storageError(.integrity(key: objectKey(key), expected: object.etag, actual: actual))
            }
        }
        let status = RenditionStatus(size: Int64(bytes.count), version: object.etag)
        cache.keep(key, status: status, bytes: bytes, askedAs: version, since: generation)
        return (status, bytes)
    }

    /// Nothing to do: every publish and discard is durable once answered.
    public func makeChangesDurable() async throws(StorageError) {}

    public func list(_ rendition: Rendition) async throws(StorageError) -> [RenditionKey] {
        try await listDated(rendition).map(\.key)
    }

    /// Each object's age is its `LastModified`, by the server's clock.
    public func listDated(_ rendition: Rendition) async throws(StorageError) -> [DatedRendition] {
        let folder = location.prefix + StateLayout.folderName(of: rendition) + "/"
        let objects = try await mapped { () throws(S3Error) in try await client.listObjects(prefix: folder) }
        let now = Date()
        return objects.compactMap { object in
            // Only keys as the daemon spells them: a stray beside them is none of its renditions.
            guard let key = RenditionKey(liveName: object.key.dropFirst(folder.count), of: rendition) else { return nil }
            return DatedRendition(key: key, written: object.lastModified ?? now)
        }
    }

    /// Every object under the prefix whose key is none utensild writes there: neither a live
    /// rendition's (``RenditionKey/init(liveName:of:)`` in its folder) nor a staged one's or a
    /// marker under `staging/<host_name>/`. An empty key ending in `/` (a folder, as some
    /// consoles make one) is none. One listing of the whole prefix.
    public func listForeign() async throws(StorageError) -> [ForeignObject] {
        let objects = try await mapped { () throws(S3Error) in try await client.listObjects(prefix: location.prefix) }
        let now = Date()
        return objects.filter { !$0.key.hasSuffix("/") && !isUtensilds($0.key) }.map {
            ForeignObject(location: location.url(of: $0.key), written: $0.lastModified ?? now)
        }
    }

    /// Whether `key` is one utensild writes: a live rendition's or a staged one's.
    private func isUtensilds(_ key: String) -> Bool {
        let path = key.dropFirst(location.prefix.count)
        guard let slash = path.firstIndex(of: "/") else { return false }
        let folder = path[..<slash], name = path[path.index(after: slash)...]
        if folder == StateLayout.stagingFolderName {
            guard let hostEnd = name.firstIndex(of: "/"), hostEnd != name.startIndex else { return false }
            let staged = name[name.index(after: hostEnd)...]
            return PlacedLiveMarker(parsing: String(staged)) != nil || StagedName(parsing: Array(staged.utf8)) != nil
        }
        return Rendition.allCases.contains { rendition in
            StateLayout.folderName(of: rendition) == folder && RenditionKey(liveName: name, of: rendition) != nil
        }
    }

    /// Every host's folder under `staging/`, in one listing.
    public func listEveryHostsStaged() async throws(StorageError) -> [HostStagedOperation] {
        let root = location.prefix + StateLayout.stagingFolderName + "/"
        let objects = try await mapped { () throws(S3Error) in try await client.listObjects(prefix: root) }
        let now = Date()
        var found: [String: [S3Client.ListedObject]] = [:]
        for object in objects {
            let path = object.key.dropFirst(root.count)
            guard let slash = path.firstIndex(of: "/"), slash != path.startIndex else { continue }
            found[String(path[..<slash]), default: []].append(object)
        }
        return found.flatMap { host, objects in
            let hostPrefix = root + host + "/"
            let markers = objects.compactMap { object -> HostStagedOperation? in
                guard let marker = PlacedLiveMarker(parsing: String(object.key.dropFirst(hostPrefix.count))) else { return nil }
                return HostStagedOperation(
                    host: host, operation: marker.operationPlacedLive, written: object.lastModified ?? now,
                    locations: [location.url(of: object.key)])
            }
            let staged = objects.compactMap { object -> (StagedName, S3Client.ListedObject)? in
                StagedName(parsing: Array(object.key.utf8.dropFirst(hostPrefix.utf8.count))).map { ($0, object) }
            }
            return markers + Dictionary(grouping: staged, by: \.0.operation).map { operation, parts in
                let names = parts.map(\.0)
                let original = names.first { $0.rendition == .original }
                return HostStagedOperation(
                    host: host,
                    operation: StagedRenditions(
                        utensil: names[0].utensil, operation: operation, originalExtension: original?.fileExtension ?? "jpeg",
                        renditions: Set(names.map(\.rendition))),
                    written: parts.map { $0.1.lastModified ?? now }.max() ?? now,
                    locations: parts.map { location.url(of: $0.1.key) }.sorted())
            }
        }
    }

    /// The same bucket, each request given up after ``probeTimeoutSeconds``.
    public func forProbes() -> any RenditionStorage {
        S3Storage(client: client.withTimeout(.seconds(probeTimeoutSeconds)), location: location, hostName: hostName, cache: cache)
    }

    /// The same bucket and prefix, with `hostName`'s folder of staged objects.
    public func asHost(_ hostName: String) -> any RenditionStorage {
        S3Storage(client: client, location: location, hostName: hostName, cache: cache)
    }

    /// This host's staged operations, and each new utensil's whose marker is left
    /// (``PlacedLiveMarker``): placed live, with every rendition it may have put.
    public func listStaged() async throws(StorageError) -> [StagedRenditions] {
        let prefix = stagingPrefix
        let keys = try await mapped { () throws(S3Error) in try await client.list(prefix: prefix) }
        var found: [UUID: (utensil: UUID, originalExtension: String?, renditions: Set<Rendition>)] = [:]
        var placedLive: [StagedRenditions] = []
        for key in keys {
            if let marker = PlacedLiveMarker(parsing: String(key.dropFirst(prefix.count))) {
                placedLive.append(marker.operationPlacedLive)
                continue
            }
            guard let name = StagedName(parsing: Array(key.utf8.dropFirst(prefix.utf8.count))) else { continue }
            var entry = found[name.operation] ?? (name.utensil, nil, [])
            entry.renditions.insert(name.rendition)
            if name.rendition == .original { entry.originalExtension = name.fileExtension }
            found[name.operation] = entry
        }
        return placedLive + found.map { operation, entry in
            StagedRenditions(
                utensil: entry.utensil, operation: operation, originalExtension: entry.originalExtension ?? "jpeg",
                renditions: entry.renditions)
        }
    }

    // MARK: Beyond the seam

    /// Aborts the multipart uploads under the prefix begun before `cutoff` and never finished
    /// (a crash mid-upload leaves their parts billed and unseen); how many it aborted. One
    /// whose start the server does not say is aborted too. For the sweeper, one host at a time.
    @discardableResult
    public func abortUnfinishedUploads(begunBefore cutoff: Date) async throws(StorageError) -> Int {
        let uploads = try await mapped { () throws(S3Error) in try await client.multipartUploads(prefix: location.prefix) }
        var aborted = 0
        for upload in uploads where (upload.initiated ?? .distantPast) < cutoff {
            try await mapped { () throws(S3Error) in try await client.abort(upload) }
            aborted += 1
        }
        return aborted
    }

    // MARK: Helpers

    /// Whether the live object of `key` holds exactly `bytes`.
    private func isLive(_ key: RenditionKey, holding bytes: [UInt8]) async throws(StorageError) -> Bool {
        let head = try await mapped { () throws(S3Error) in try await client.head(objectKey(key)) }
        guard let head, head.size == Int64(bytes.count) else { return false }
        if head.etag.count == 32, !head.etag.contains("-") {
            return head.etag.lowercased() == SigV4Signer.hex(Insecure.MD5.hash(data: bytes))
        }
        do throws(StorageError) {
            return try await read(key, range: nil) == bytes
        } catch .notFound {
            return false
        }
    }

    private func mapped<T>(_ body: () async throws(S3Error) -> T) async throws(StorageError) -> T {
        do throws(S3Error) {
            return try await body()
        } catch {
            throw Self.storageError(error)
        }
    }

    /// An S3 failure as the store sees it.
    public static func storageError(_ error: S3Error) -> StorageError {
        let kind: ObjectStorageFailure.Kind
        switch error {
        case .unreachable: kind = .unreachable
        case .credentialsRefused: kind = .credentialsRefused
        case .noSuchBucket: kind = .bucketMissing
        case .noSuchKey, .alreadyExists, .integrity, .server, .invalidEndpoint, .malformedAnswer: kind = .failed
        }
        let transient: Bool
        switch error {
        case .integrity: transient = true
        default: transient = error.isTransient
        }
        return .objectStorage(ObjectStorageFailure(kind: kind, isTransient: transient, message: error.description))
    }

    private static func contentType(_ rendition: Rendition, _ originalExtension: String) -> String {
        switch rendition.fileExtension(original: originalExtension).lowercased() {
        case "jpeg", "jpg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "avif": "image/avif"
        default: "application/octet-stream"
        }
    }
}

/// Operations an ``S3Storage`` could not remove, to remove again.
private final class OwedDiscards: Sendable {
    private let operations = Mutex<[StagedRenditions]>([])

    func add(_ operation: StagedRenditions) {
        operations.withLock { $0.append(operation) }
    }

    /// Every operation owed, forgotten: one whose removal fails again is added again.
    func takeAll() -> [StagedRenditions] {
        operations.withLock { operations in
            defer { operations = [] }
            return operations
        }
    }
}
