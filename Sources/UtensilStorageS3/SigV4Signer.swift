import Crypto
import Foundation

/// The keys an S3 request is signed with. Its description names the access key only.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String

    public init(accessKeyID: String, secretAccessKey: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    public var description: String { "access key \(accessKeyID)" }
}

/// One request as AWS Signature Version 4 sees it: what is signed.
public struct SigV4Request: Sendable {
    public var method: String
    /// The path as the server decodes it (`/bucket/some key.jpeg`); ``SigV4Signer/encodePath(_:)``
    /// gives what goes on the wire and into the signature.
    public var path: String
    /// The query's parameters, not encoded, in any order.
    public var query: [(name: String, value: String)]
    /// Every header to sign, `host` among them, not yet `x-amz-date` (the signer adds it).
    public var headers: [(name: String, value: String)]
    /// The hex SHA-256 of the body (or `UNSIGNED-PAYLOAD`).
    public var payloadHash: String

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)], payloadHash: String
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.payloadHash = payloadHash
    }
}

/// A signed request's parts, the intermediate ones kept for tests and for error messages.
public struct SigV4Signature: Sendable, Equatable {
    public var canonicalRequest: String
    public var stringToSign: String
    public var signature: String
    /// `x-amz-date`'s value (`20150830T123600Z`).
    public var amzDate: String
    /// The `Authorization` header's value.
    public var authorization: String
}

/// AWS Signature Version 4 (docs.aws.amazon.com, "Create a signed AWS API request") for one
/// region and service, in the header form (`Authorization`). Paths are encoded once, as S3
/// wants (not normalised, not double-encoded). Tested against AWS's published test vectors and
/// against botocore's signatures for the same requests.
public struct SigV4Signer: Sendable {
    public let credentials: S3Credentials
    public let region: String
    public let service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The hex SHA-256 of an empty body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Signs `request` as made at `date`: send ``SigV4Signature/amzDate`` as `x-amz-date` and
    /// ``SigV4Signature/authorization`` as `Authorization`.
    public func sign(_ request: SigV4Request, at date: Date) -> SigV4Signature {
        let amzDate = Self.amzDate(date)
        let day = String(amzDate.prefix(8))
        var headers: [String: [String]] = [:]
        for (name, value) in request.headers + [("x-amz-date", amzDate)] {
            headers[name.lowercased(), default: []].append(Self.trimmed(value))
        }
        let names = headers.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let canonicalHeaders = names.map { "\($0):\(headers[$0]!.joined(separator: ","))\n" }.joined()
        let canonicalRequest = [
            request.method, Self.encodePath(request.path), Self.canonicalQuery(request.query),
            canonicalHeaders, signedHeaders, request.payloadHash,
        ].joined(separator: "\n")

        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return SigV4Signature(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
            amzDate: amzDate, authorization: authorization)
    }

    /// `path` as sent and signed: every byte but the unreserved ones (`A-Z a-z 0-9 - _ . ~`)
    /// and `/` percent-encoded.
    public static func encodePath(_ path: String) -> String {
        percentEncoded(path, keeping: UInt8(ascii: "/"))
    }

    /// The query as sent and signed: each name and value percent-encoded (`/` too), sorted.
    public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (percentEncoded($0.name), percentEncoded($0.value)) }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { pair -> String in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// RFC 3986's unreserved bytes: `A-Z a-z 0-9 - _ . ~`.
    private static let unreserved: [Bool] = (0...255).map { (byte: Int) -> Bool in
        let character = Character(Unicode.Scalar(UInt8(byte)))
        return (character.isASCII && (character.isLetter || character.isNumber)) || "-_.~".contains(character)
    }

    /// The bytes of `text` in RFC 3986's unreserved set (and `keeping`) as they are, the others
    /// as `%XX` in upper case.
    static func percentEncoded(_ text: String, keeping: UInt8? = nil) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if unreserved[Int(byte)] || byte == keeping {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A header value as signed: spaces around it removed, runs of spaces inside made one.
    static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    static func amzDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// Lower-case hex of a digest or MAC.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        return String(decoding: out, as: UTF8.self)
    }
}
