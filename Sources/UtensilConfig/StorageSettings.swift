import Glibc

/// `storage`: where originals, thumbnails and previews live.
public enum StorageLocation: Sendable, Equatable, CustomStringConvertible {
    /// `"local"`: under `state_dir`.
    case local
    /// `"s3://BUCKET/PREFIX"`: an S3-compatible bucket, every key under the prefix (`""`, or
    /// without leading or trailing slashes: `site/photos`).
    case s3(bucket: String, prefix: String)

    /// The value as written in the configuration.
    public var description: String {
        switch self {
        case .local: "local"
        case .s3(let bucket, let prefix): prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)"
        }
    }

    /// `"local"`, `"s3://BUCKET"` or `"s3://BUCKET/PREFIX"`.
    static func parse(_ text: String) throws(SettingProblem) -> StorageLocation {
        if text == "local" { return .local }
        guard text.hasPrefix("s3://") else {
            throw SettingProblem("is neither \"local\" nor \"s3://BUCKET/PREFIX\" (an S3-compatible bucket, the prefix may be empty)")
        }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        guard (3...63).contains(bucket.count),
              bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") })
        else {
            throw SettingProblem("names no usable bucket: a bucket's name is 3 to 63 of a-z 0-9 . -, as in \"s3://utensils/site\"")
        }
        let prefix = rest.dropFirst(bucket.count).split(separator: "/").joined(separator: "/")
        guard !prefix.contains(where: { $0.isASCII && ($0.asciiValue! < 0x20 || $0 == "\\") }) else {
            throw SettingProblem("has a prefix with control characters or backslashes; use letters, digits, - _ . and /")
        }
        return .s3(bucket: bucket, prefix: prefix)
    }
}

/// The checks of `storage_endpoint`, `storage_region` and `storage_credentials_file`.
enum StorageSettingRules {
    /// `""` or `http(s)://HOST[:PORT]` with no path.
    static func endpoint(_ text: String) throws(SettingProblem) -> String {
        if text.isEmpty { return "" }
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: lower.hasPrefix) else {
            throw SettingProblem("is not an http:// or https:// URL; give the S3 API's base URL, as \"https://s3.example.org\" or \"http://127.0.0.1:8333\"")
        }
        let authority = text.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false)
        guard let host = authority.first, !host.isEmpty, authority.dropFirst().allSatisfy(\.isEmpty), authority.count <= 2,
              !host.contains(where: { $0 == "@" || $0 == "?" || $0 == "#" || $0 == " " })
        else {
            throw SettingProblem("is not a base URL (a host, an optional port, no path): requests are path-style, the bucket goes in storage")
        }
        return text
    }

    /// A region's name: 1 to 64 of a-z 0-9 -.
    static func region(_ text: String) throws(SettingProblem) -> String {
        guard (1...64).contains(text.count), text.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
            throw SettingProblem("is not a region's name (a-z 0-9 -, as \"us-east-1\"; S3-compatible servers mostly take \"us-east-1\")")
        }
        return text
    }

    /// The credentials file: an existing regular file (read when connecting, not now).
    static func credentialsFile(_ path: String) throws(SettingProblem) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR {
                throw SettingProblem("does not exist; write AWS_ACCESS_KEY_ID=… and AWS_SECRET_ACCESS_KEY=… lines into it (mode 0640, group of the daemon's user) or correct the path")
            }
            throw SettingProblem("cannot be examined (\(ConfigurationFile.errorText(errno))); make it readable for the daemon's user")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw SettingProblem("is not a regular file; name the file holding the keys") }
        return path
    }
}

extension UtensilConfiguration {
    /// With an `s3://` storage, `storage_endpoint` must be set: the problem, or nil.
    public var storageProblem: ConfigurationError? {
        guard case .s3 = storage, storageEndpoint.isEmpty else { return nil }
        return .invalidValue(
            .storageEndpoint, source: .builtInDefault, value: "\"\"",
            problem: "is required with storage = \(TOMLText.quoted(storage.description)): give the S3 API's base URL")
    }
}
