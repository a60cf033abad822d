import Crypto
import Foundation
import Testing
import UtensilStorageS3
import UtensilTestSupport

/// The signing against AWS's published Signature Version 4 test vectors
/// (Tests/Fixtures/sigv4/aws-test-suite.json) and against the signatures botocore's S3 signer
/// computes for the requests the S3 client makes (tests/s3/botocore_sign.py).
@Suite("SigV4 signing")
struct SigV4SignerTests {
    struct Suite: Decodable {
        var accessKeyID: String
        var secretAccessKey: String
        var region: String
        var service: String
        var date: String
        var vectors: [Vector]
    }

    struct Vector: Decodable, CustomStringConvertible {
        var name: String
        var method: String
        var path: String
        var query: [[String]]
        var headers: [[String]]
        var body: String
        var signedHeaders: String
        var signature: String
        var description: String { name }
    }

    static let fixtures = RepositoryDocuments.root.appendingPathComponent("Tests/Fixtures/sigv4/aws-test-suite.json")

    static func suite() throws -> Suite {
        try JSONDecoder().decode(Suite.self, from: Data(contentsOf: fixtures))
    }

    static func date(_ text: String) throws -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return try #require(formatter.date(from: text))
    }

    static func payloadHash(_ body: String) -> String {
        SigV4Signer.hex(SHA256.hash(data: Array(body.utf8)))
    }

    @Test("the published test vectors sign to their published signatures", arguments: try suite().vectors)
    func publishedVectors(_ vector: Vector) throws {
        let suite = try Self.suite()
        let signer = SigV4Signer(
            credentials: S3Credentials(accessKeyID: suite.accessKeyID, secretAccessKey: suite.secretAccessKey),
            region: suite.region, service: suite.service)
        let request = SigV4Request(
            method: vector.method, path: vector.path, query: vector.query.map { ($0[0], $0[1]) },
            headers: vector.headers.map { ($0[0], $0[1]) }, payloadHash: Self.payloadHash(vector.body))
        let signed = signer.sign(request, at: try Self.date(suite.date))
        #expect(signed.amzDate == suite.date)
        #expect(signed.signature == vector.signature, "canonical request:\n\(signed.canonicalRequest)")
        #expect(signed.authorization == "AWS4-HMAC-SHA256 Credential=\(suite.accessKeyID)/20150830/us-east-1/service/aws4_request, "
            + "SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)")
    }

    /// The kinds of request the S3 client makes, with keys and queries that need encoding.
    static let clientRequests: [(method: String, path: String, query: [(String, String)], headers: [(String, String)], body: String)] = [
        ("PUT", "/utensils/photos/staged/0F6C.op.original.jpeg", [], [("If-None-Match", "*"), ("Content-Length", "5")], "hello"),
        ("GET", "/utensils/photos/live/a b+c~d=é.jpeg", [], [("Range", "bytes=0-9")], ""),
        ("HEAD", "/utensils/k", [], [], ""),
        ("DELETE", "/utensils/k", [], [], ""),
        ("GET", "/utensils", [("list-type", "2"), ("prefix", "p/x y"), ("continuation-token", "a+b/c=")], [], ""),
        ("POST", "/utensils/big", [("uploads", "")], [], ""),
        ("PUT", "/utensils/big", [("partNumber", "2"), ("uploadId", "u/1=")], [("x-amz-checksum-sha256", "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=")], "hello"),
    ]

    @Test("the S3 client's requests sign as botocore signs them")
    func botocoreAgrees() throws {
        let python = try S3TestTools.python()
        let credentials = S3Credentials(accessKeyID: "utensil-test", secretAccessKey: "s3cr3t/with+signs=")
        let signer = SigV4Signer(credentials: credentials, region: "eu-central-1")
        let when = "20261207T061500Z"
        let endpoint = "127.0.0.1:8333"
        let input: [String: Any] = [
            "accessKeyID": credentials.accessKeyID, "secretAccessKey": credentials.secretAccessKey,
            "region": signer.region, "date": when, "endpoint": "http://\(endpoint)",
            "requests": Self.clientRequests.map { request in
                [
                    "method": request.method, "path": request.path, "query": request.query.map { [$0.0, $0.1] },
                    "headers": request.headers.map { [$0.0, $0.1] }, "body": request.body,
                ] as [String: Any]
            },
        ]
        let answers = try Self.run(python, [S3TestTools.botocoreSigner], input: JSONSerialization.data(withJSONObject: input))
        let decoded = try JSONDecoder().decode([[String: AnyDecodable]].self, from: answers)
        try #require(decoded.count == Self.clientRequests.count)
        for (request, answer) in zip(Self.clientRequests, decoded) {
            let hash = Self.payloadHash(request.body)
            let signed = signer.sign(
                SigV4Request(
                    method: request.method, path: request.path, query: request.query,
                    headers: [("host", endpoint), ("x-amz-content-sha256", hash)] + request.headers, payloadHash: hash),
                at: try Self.date(when))
            #expect(signed.canonicalRequest == answer["canonicalRequest"]?.text, "\(request.method) \(request.path)")
            #expect(signed.authorization == answer["authorization"]?.text, "\(request.method) \(request.path)")
        }
    }

    @Test("the path keeps its slashes and unreserved characters and encodes the rest; the query is sorted")
    func encoding() {
        #expect(SigV4Signer.encodePath("/b/a b+c~d=é.jpeg") == "/b/a%20b%2Bc~d%3D%C3%A9.jpeg")
        #expect(SigV4Signer.canonicalQuery([("prefix", "a/b"), ("list-type", "2"), ("uploads", "")]) == "list-type=2&prefix=a%2Fb&uploads=")
    }

    @Test("credentials describe themselves without the secret")
    func noSecretInDescription() {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "very-secret")
        #expect(!"\(credentials)".contains("very-secret"))
        #expect("\(credentials)".contains("AKID"))
    }

    /// Runs `program` with `input` on standard input; its standard output, or a failure with
    /// its standard error.
    static func run(_ program: String, _ arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(program) \(arguments) failed (\(process.terminationStatus)): \(String(decoding: errors, as: UTF8.self))")
        }
        return output
    }
}

/// A JSON value of botocore's answer: its text when it is a string.
struct AnyDecodable: Decodable {
    var text: String?
    init(from decoder: any Decoder) throws {
        text = try? decoder.singleValueContainer().decode(String.self)
    }
}
