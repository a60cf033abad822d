/// `storage = "s3://BUCKET/PREFIX"`: the bucket and the prefix every key begins with.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public var bucket: String
    /// Empty, or ending in `/` (`photos/`).
    public var prefix: String

    public init(bucket: String, prefix: String) {
        self.bucket = bucket
        let trimmed = prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        self.prefix = trimmed.isEmpty ? "" : trimmed + "/"
    }

    /// `s3://BUCKET` or `s3://BUCKET/PREFIX`; nil for anything else (no bucket, another scheme).
    public init?(parsing text: String) {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty, bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") })
        else { return nil }
        self.init(bucket: String(bucket), prefix: String(rest.dropFirst(bucket.count)))
    }

    /// `s3://BUCKET/KEY`: how the JSON and `show` name an object.
    public func url(of key: String) -> String { "s3://\(bucket)/\(key)" }

    public var description: String { "s3://\(bucket)/\(prefix)" }
}
