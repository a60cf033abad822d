import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// A client of one bucket of an S3-compatible server, over async-http-client, path-style
/// (`ENDPOINT/BUCKET/KEY`), every request signed with ``SigV4Signer``.
///
/// Integrity: an object put whole carries its SHA-256 as `x-amz-checksum-sha256`, which the
/// server checks against the bytes it received (AWS S3 and SeaweedFS refuse a mismatch as
/// `BadDigest`), and is signed by the same digest (`x-amz-content-sha256`, which some servers,
/// SeaweedFS among them, do not check); a photo's original goes with the SHA-256 the catalog
/// records of it, computed once. A multipart upload's parts carry their `Content-MD5`. A whole
/// object read back is checked against its ETag when that is an MD5 (a single-part upload). Bodies above ``multipartThreshold`` go up in parts
/// of ``partSize`` (multipart upload), and a multipart upload that fails is aborted, so that no
/// invisible parts are left to be paid for.
public struct S3Client: Sendable {
    /// The endpoint as given (`http://127.0.0.1:8333`), for messages.
    public let endpoint: String
    public let bucket: String
    public let signer: SigV4Signer
    /// A body larger than this goes up as a multipart upload.
    public let multipartThreshold: Int
    /// The size of each part of a multipart upload but the last (S3's least is 5 MiB).
    public let partSize: Int
    /// How long one request may take, its body included.
    public private(set) var timeout: TimeAmount

    private let scheme: String
    private let hostHeader: String
    private let http: HTTPClient
    /// The client of reads handed on as they arrive to a reader that may stall (``stream(_:range:forSlowReader:)``).
    private let streamingHTTP: HTTPClient

    /// The shared client's pool is 8 connections per server: a GET handed to a reader that
    /// stopped reading holds its connection until the reader's stall limit, so eight stalled
    /// gallery clients would hold them all and the store's requests (an ingest's PUT, a readiness
    /// probe) would wait behind them. Those GETs go through this client of their own instead,
    /// with a pool as large as the gallery's connections may be (``streamingConnections``).
    static let streamingHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: streamingConnections)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = connectTimeout
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The client of every other request. A server that refuses the connection, or does not
    /// take it within ``connectTimeout``, fails the request at once as
    /// ``S3Error/unreachable(endpoint:reason:)``, where async-http-client would try to connect
    /// again until the request's whole time limit ran out: the store has its own way to wait for
    /// a bucket (drops retried once it answers), and an ingest's PUT left waiting out a minute
    /// kept a short outage from being told at all.
    static let storeHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = connectTimeout
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// How long a connection to the server may take to be made.
    public static let connectTimeout: TimeAmount = .seconds(5)

    /// How many streamed GETs to one server may be open at once: the gallery's most connections.
    public static let streamingConnections = 512

    /// The default ``multipartThreshold``: 64 MiB (docs: bodies above it go up in 16 MiB parts).
    public static let defaultMultipartThreshold = 64 << 20
    /// The default ``partSize``: 16 MiB.
    public static let defaultPartSize = 16 << 20

    /// A client of `bucket` at `endpoint` (`http://host:port` or `https://host`).
    public init(
        endpoint: String, bucket: String, region: String, credentials: S3Credentials,
        httpClient: HTTPClient = .shared, multipartThreshold: Int = defaultMultipartThreshold,
        partSize: Int = defaultPartSize, timeout: TimeAmount = .seconds(60)
    ) throws(S3Error) {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil
        else { throw .invalidEndpoint(endpoint) }
        self.endpoint = endpoint
        self.bucket = bucket
        self.signer = SigV4Signer(credentials: credentials, region: region)
        self.multipartThreshold = multipartThreshold
        self.partSize = max(partSize, 1)
        self.timeout = timeout
        self.scheme = scheme
        self.hostHeader = url.port.map { "\(host):\($0)" } ?? host
        self.http = httpClient === HTTPClient.shared ? Self.storeHTTPClient : httpClient
        self.streamingHTTP = httpClient === HTTPClient.shared ? Self.streamingHTTPClient : httpClient
    }

    // MARK: Objects

    /// Puts `bytes` as `key`; with `createOnly`, only when there is no object `key`
    /// (`If-None-Match: *`): one that is there is ``S3Error/alreadyExists(_:)``. Above
    /// ``multipartThreshold``, a multipart upload (aborted when any part of it fails).
    /// `sha256`: the bytes' SHA-256 when the caller has it already (else it is computed); the
    /// server refuses the object when its bytes do not have it.
    public func put(
        _ key: String, _ bytes: [UInt8], createOnly: Bool = false, contentType: String? = nil, sha256: [UInt8]? = nil
    ) async throws(S3Error) {
        if bytes.count > multipartThreshold {
            try await putMultipart(key, bytes, createOnly: createOnly, contentType: contentType)
            return
        }
        let digest = sha256 ?? Array(SHA256.hash(data: bytes))
        var headers: [(String, String)] = [("x-amz-checksum-sha256", Data(digest).base64EncodedString())]
        if createOnly { headers.append(("If-None-Match", "*")) }
        if let contentType { headers.append(("Content-Type", contentType)) }
        let answer = try await send("PUT", key: key, headers: headers, body: bytes[...], payloadSHA256: digest)
        try answer.expectSuccess(key: key, client: self)
    }

    /// The bytes of `key`, all or those in `range` (an HTTP range: `first...last`, cut off at the
    /// end; ``S3Error/noSuchKey(_:)`` when there is no such object). A range that starts at or
    /// past the end reads nothing.
    public func get(_ key: String, range: ClosedRange<Int64>? = nil, maxBytes: Int = 1 << 31) async throws(S3Error) -> [UInt8] {
        let headers = range.map { [("Range", "bytes=\($0.lowerBound)-\($0.upperBound)")] } ?? []
        let answer = try await send("GET", key: key, headers: headers, maxBytes: maxBytes)
        if answer.status == 416 { return [] }
        try answer.expectSuccess(key: key, client: self)
        if let range, answer.status == 200 {
            // A server that ignores Range sends the whole object: cut the range out of it.
            let start = Int(min(range.lowerBound, Int64(answer.body.count)))
            let end = Int(min(range.upperBound + 1, Int64(answer.body.count)))
            return Array(answer.body[start..<end])
        }
        if range == nil, answer.status == 200, let etag = answer.header("ETag").map(Self.unquoted), etag.count == 32, !etag.contains("-") {
            let actual = SigV4Signer.hex(Insecure.MD5.hash(data: answer.body))
            guard actual == etag.lowercased() else { throw .integrity(key: key, expected: etag, actual: actual) }
        }
        return answer.body
    }

    /// An object's bytes as they arrive, for serving it without holding it whole.
    public struct ObjectStream: Sendable {
        /// The size of the whole object.
        public var size: Int64
        /// The bytes this answer carries: all, or the range asked for (cut off at the end).
        public var length: Int64
        /// Its ETag, without quotes.
        public var etag: String
        /// The bytes, chunk by chunk.
        public var body: HTTPClientResponse.Body
    }

    /// The bytes of `key` as they arrive, all or those in `range`; nil when there is no such
    /// object. A range that starts at or past the end gives an empty body. `forSlowReader`: the
    /// body goes to a reader that may stall (a gallery client), so the GET goes through a pool
    /// of its own and never holds a connection the store's requests need.
    public func stream(_ key: String, range: ClosedRange<Int64>? = nil, forSlowReader: Bool = false) async throws(S3Error) -> ObjectStream? {
        let headers = range.map { [("Range", "bytes=\($0.lowerBound)-\($0.upperBound)")] } ?? []
        let response = try await open("GET", key: key, headers: headers, through: forSlowReader ? streamingHTTP : http)
        let status = Int(response.status.code)
        let etag = response.headers.first(name: "ETag").map(Self.unquoted) ?? ""
        switch status {
        case 200:
            let size = response.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0
            return ObjectStream(size: size, length: size, etag: etag, body: response.body)
        case 206:
            // Content-Range: bytes FIRST-LAST/SIZE
            let contentRange = response.headers.first(name: "Content-Range") ?? ""
            let size = contentRange.split(separator: "/").last.flatMap { Int64($0) } ?? 0
            let length = response.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0
            return ObjectStream(size: size, length: length, etag: etag, body: response.body)
        case 416:
            guard let head = try await head(key) else { return nil }
            return ObjectStream(size: head.size, length: 0, etag: head.etag, body: HTTPClientResponse.Body())
        default:
            let text: [UInt8]
            do {
                text = Array(buffer: try await response.body.collect(upTo: 1 << 20))
            } catch {
                throw .unreachable(endpoint: endpoint, reason: "GET \(key): \(error)")
            }
            let answer = Answer(status: status, headers: response.headers, body: text)
            if status == 404, answer.errorCode != "NoSuchBucket" { return nil }
            throw answer.error(key: key, client: self, status: status)
        }
    }

    /// This client with another time limit per request (a readiness probe wants a short one).
    public func withTimeout(_ timeout: TimeAmount) -> S3Client {
        var copy = self
        copy.timeout = timeout
        return copy
    }

    /// What is known of an object without its bytes.
    public struct ObjectHead: Sendable, Equatable {
        public var size: Int64
        /// Its ETag, without quotes (the MD5 of a single-part upload).
        public var etag: String
    }

    /// The size and ETag of `key`, or nil when there is no such object.
    public func head(_ key: String) async throws(S3Error) -> ObjectHead? {
        let answer = try await send("HEAD", key: key)
        if answer.status == 404 { return nil }
        try answer.expectSuccess(key: key, client: self)
        guard let length = answer.header("Content-Length").flatMap({ Int64($0) }) else {
            throw .malformedAnswer("HEAD \(key) without a Content-Length")
        }
        return ObjectHead(size: length, etag: answer.header("ETag").map(Self.unquoted) ?? "")
    }

    /// Removes `key`; one that is not there is fine (S3 answers 204 either way).
    public func delete(_ key: String) async throws(S3Error) {
        let answer = try await send("DELETE", key: key)
        if answer.status == 404, answer.errorCode != "NoSuchBucket" { return }
        try answer.expectSuccess(key: key, client: self)
    }

    /// Every key beginning with `prefix` (ListObjectsV2, page after page of at most `pageSize`
    /// keys), in the server's order.
    public func list(prefix: String, pageSize: Int = 1000) async throws(S3Error) -> [String] {
        try await listObjects(prefix: prefix, pageSize: pageSize).map(\.key)
    }

    /// An object as a listing names it.
    public struct ListedObject: Sendable, Equatable {
        public var key: String
        /// When it was last written, by the server's clock; nil when the listing does not say.
        public var lastModified: Date?
    }

    /// Every object whose key begins with `prefix`, with when it was last written
    /// (ListObjectsV2, page after page of at most `pageSize` keys), in the server's order.
    public func listObjects(prefix: String, pageSize: Int = 1000) async throws(S3Error) -> [ListedObject] {
        var objects: [ListedObject] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(pageSize))]
            if let token { query.append(("continuation-token", token)) }
            let answer = try await send("GET", key: nil, query: query)
            try answer.expectSuccess(key: prefix, client: self)
            let xml = answer.text
            guard xml.contains("<ListBucketResult") else { throw .malformedAnswer("ListObjectsV2 answered: \(xml.prefix(200))") }
            for block in S3XML.blocks("Contents", in: xml) {
                guard let key = S3XML.value("Key", in: block) else { continue }
                objects.append(ListedObject(key: key, lastModified: S3XML.value("LastModified", in: block).flatMap(Self.date)))
            }
            token = S3XML.value("IsTruncated", in: xml) == "true" ? S3XML.value("NextContinuationToken", in: xml) : nil
        } while token != nil
        return objects
    }

    // MARK: The bucket

    /// Whether the bucket is there and the credentials are accepted: nothing when so, else
    /// ``S3Error/noSuchBucket(endpoint:bucket:)``, ``S3Error/credentialsRefused(endpoint:code:message:)``
    /// or ``S3Error/unreachable(endpoint:reason:)``.
    public func checkBucket() async throws(S3Error) {
        // A listing of one key, not HEAD: a HEAD's answer has no body to say why it was refused.
        let answer = try await send("GET", key: nil, query: [("list-type", "2"), ("max-keys", "1")])
        try answer.expectSuccess(key: bucket, client: self)
    }

    /// Creates the bucket (tests and first set-up); one that is there already and ours is fine.
    public func createBucket() async throws(S3Error) {
        let answer = try await send("PUT", key: nil)
        if answer.status == 409, answer.errorCode == "BucketAlreadyOwnedByYou" { return }
        try answer.expectSuccess(key: bucket, client: self)
    }

    // MARK: Multipart

    /// A multipart upload begun and neither completed nor aborted: parts kept (and paid for)
    /// that no object shows.
    public struct MultipartUpload: Sendable, Equatable {
        public var key: String
        public var uploadID: String
        /// When it was begun, when the server says.
        public var initiated: Date?
    }

    /// Begins a multipart upload of `key` (``put(_:_:createOnly:contentType:)`` does, for a large
    /// body); its upload id.
    public func startMultipartUpload(_ key: String, contentType: String? = nil) async throws(S3Error) -> String {
        let created = try await send("POST", key: key, query: [("uploads", "")], headers: contentType.map { [("Content-Type", $0)] } ?? [])
        try created.expectSuccess(key: key, client: self)
        guard let uploadID = S3XML.value("UploadId", in: created.text) else {
            throw .malformedAnswer("CreateMultipartUpload of \(key) gave no UploadId: \(created.text.prefix(200))")
        }
        return uploadID
    }

    /// The multipart uploads under `prefix` not completed nor aborted (ListMultipartUploads, page
    /// after page): what an interrupted upload left, for a sweeper to abort.
    public func multipartUploads(prefix: String) async throws(S3Error) -> [MultipartUpload] {
        var uploads: [MultipartUpload] = []
        var markers: (key: String, upload: String)?
        repeat {
            var query = [("uploads", ""), ("prefix", prefix)]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.upload)] }
            let answer = try await send("GET", key: nil, query: query)
            try answer.expectSuccess(key: prefix, client: self)
            let xml = answer.text
            guard xml.contains("<ListMultipartUploadsResult") else {
                throw .malformedAnswer("ListMultipartUploads answered: \(xml.prefix(200))")
            }
            for block in S3XML.blocks("Upload", in: xml) {
                guard let key = S3XML.value("Key", in: block), let id = S3XML.value("UploadId", in: block) else { continue }
                uploads.append(MultipartUpload(key: key, uploadID: id, initiated: S3XML.value("Initiated", in: block).flatMap(Self.date)))
            }
            if S3XML.value("IsTruncated", in: xml) == "true", let key = S3XML.value("NextKeyMarker", in: xml),
               let upload = S3XML.value("NextUploadIdMarker", in: xml), markers.map({ $0 != (key, upload) }) ?? true {
                markers = (key, upload)
            } else {
                markers = nil
            }
        } while markers != nil
        return uploads
    }

    /// Aborts an unfinished multipart upload, its parts removed; one already gone is fine.
    public func abort(_ upload: MultipartUpload) async throws(S3Error) {
        let answer = try await send("DELETE", key: upload.key, query: [("uploadId", upload.uploadID)])
        if answer.status == 404, answer.errorCode != "NoSuchBucket" { return }
        try answer.expectSuccess(key: upload.key, client: self)
    }

    /// An S3 timestamp (`2026-12-07T06:15:00.000Z`).
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    private func putMultipart(_ key: String, _ bytes: [UInt8], createOnly: Bool, contentType: String?) async throws(S3Error) {
        if createOnly, try await head(key) != nil { throw .alreadyExists(key) }
        let uploadID = try await startMultipartUpload(key, contentType: contentType)
        do throws(S3Error) {
            var parts: [String] = []
            var start = 0
            while start < bytes.count {
                let part = bytes[start..<min(start + partSize, bytes.count)]
                let number = parts.count + 1
                let answer = try await send(
                    "PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
                    headers: [("Content-MD5", Self.md5Base64(part))], body: part)
                try answer.expectSuccess(key: key, client: self)
                guard let etag = answer.header("ETag") else { throw S3Error.malformedAnswer("part \(number) of \(key) without an ETag") }
                parts.append(etag)
                start += part.count
            }
            let body = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + parts.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(S3XML.escaped($0.element))</ETag></Part>" }.joined()
                + "</CompleteMultipartUpload>"
            let answer = try await send(
                "POST", key: key, query: [("uploadId", uploadID)],
                headers: createOnly ? [("If-None-Match", "*")] : [], body: Array(body.utf8)[...])
            try answer.expectSuccess(key: key, client: self)
            // CompleteMultipartUpload may fail after its 200 has been sent: the body says so.
            if answer.text.contains("<Error>") { throw answer.error(key: key, client: self, status: 500) }
        } catch {
            // Best effort: an upload that cannot be aborted now is left to the bucket's
            // lifecycle rule (docs) and the sweeper.
            try? await abort(MultipartUpload(key: key, uploadID: uploadID, initiated: nil))
            throw error
        }
    }

    // MARK: Requests

    /// An answer, its body gathered.
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first(name: name) }
        var errorCode: String? { S3XML.value("Code", in: text) }

        func expectSuccess(key: String, client: S3Client) throws(S3Error) {
            guard (200..<300).contains(status) else { throw error(key: key, client: client, status: status) }
        }

        func error(key: String, client: S3Client, status: Int) -> S3Error {
            let code = errorCode ?? ""
            let message = S3XML.value("Message", in: text) ?? ""
            switch (status, code) {
            case (_, "NoSuchBucket"): return .noSuchBucket(endpoint: client.endpoint, bucket: client.bucket)
            case (403, _), (_, "SignatureDoesNotMatch"), (_, "InvalidAccessKeyId"), (_, "AuthorizationHeaderMalformed"):
                return .credentialsRefused(endpoint: client.endpoint, code: code.isEmpty ? "HTTP 403" : code, message: message)
            case (404, _): return .noSuchKey(key)
            case (412, _): return .alreadyExists(key)
            default: return .server(status: status, code: code, message: message, key: key)
            }
        }
    }

    /// Sends one signed request for `key` (nil: the bucket itself) and gathers its answer.
    func send(
        _ method: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: ArraySlice<UInt8>? = nil, payloadSHA256: [UInt8]? = nil, maxBytes: Int = 1 << 24
    ) async throws(S3Error) -> Answer {
        let response = try await open(method, key: key, query: query, headers: headers, body: body, payloadSHA256: payloadSHA256)
        do {
            let collected = method == "HEAD" ? ByteBuffer() : try await response.body.collect(upTo: maxBytes)
            return Answer(status: Int(response.status.code), headers: response.headers, body: Array(buffer: collected))
        } catch {
            throw .unreachable(endpoint: endpoint, reason: "\(method) \(key ?? bucket): \(error)")
        }
    }

    /// Sends one signed request for `key` (nil: the bucket itself); its body still to come.
    /// `payloadSHA256`: the body's SHA-256 when the caller has it already.
    func open(
        _ method: String, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: ArraySlice<UInt8>? = nil, payloadSHA256: [UInt8]? = nil, through client: HTTPClient? = nil
    ) async throws(S3Error) -> HTTPClientResponse {
        let path = "/" + bucket + (key.map { "/" + $0 } ?? "")
        let payloadHash = payloadSHA256.map { SigV4Signer.hex($0) } ?? SigV4Signer.hex(SHA256.hash(data: body ?? []))
        var signed = [("host", hostHeader), ("x-amz-content-sha256", payloadHash)] + headers
        if let body { signed.append(("Content-Length", String(body.count))) }
        let signature = signer.sign(
            SigV4Request(method: method, path: path, query: query, headers: signed, payloadHash: payloadHash), at: Date())
        let queryText = query.isEmpty ? "" : "?" + SigV4Signer.canonicalQuery(query)
        var request = HTTPClientRequest(url: "\(scheme)://\(hostHeader)\(SigV4Signer.encodePath(path))\(queryText)")
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signed where name.lowercased() != "content-length" { request.headers.add(name: name, value: value) }
        request.headers.add(name: "x-amz-date", value: signature.amzDate)
        request.headers.add(name: "Authorization", value: signature.authorization)
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            return try await (client ?? http).execute(request, timeout: timeout)
        } catch {
            throw .unreachable(endpoint: endpoint, reason: "\(method) \(path): \(error)")
        }
    }

    static func md5Base64(_ bytes: ArraySlice<UInt8>) -> String {
        Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()
    }

    static func unquoted(_ etag: String) -> String {
        etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
}
