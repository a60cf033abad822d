import Foundation

/// Where the bucket's keys come from (`storage_credentials_file`), in this order: the file the
/// configuration names; else `$CREDENTIALS_DIRECTORY/storage-credentials` (systemd's
/// `LoadCredential=storage-credentials:…`) when it exists; else the environment variables
/// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`.
///
/// A file holds the lines `AWS_ACCESS_KEY_ID=…` and `AWS_SECRET_ACCESS_KEY=…`; blank lines and
/// lines beginning with `#` are ignored, and a value may be quoted.
public enum S3CredentialsSource {
    /// The systemd credential's name.
    public static let credentialName = "storage-credentials"

    /// The keys, from `file` (empty: none configured), `environment`'s `CREDENTIALS_DIRECTORY`,
    /// or `environment`'s two variables.
    public static func load(
        file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(S3CredentialsError) -> S3Credentials {
        if !file.isEmpty { return try read(file) }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory + "/" + credentialName
            if FileManager.default.fileExists(atPath: path) { return try read(path) }
        }
        if let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
           let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty {
            return S3Credentials(accessKeyID: id, secretAccessKey: secret)
        }
        throw .noCredentials
    }

    /// The keys in the file at `path`.
    public static func read(_ path: String) throws(S3CredentialsError) -> S3Credentials {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        return try parse(text, path: path)
    }

    /// The keys in `text`, a credentials file's content (`path` names it in errors).
    public static func parse(_ text: String, path: String) throws(S3CredentialsError) -> S3Credentials {
        var values: [String: String] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard let equals = line.firstIndex(of: "=") else { throw .malformedLine(path: path, line: index + 1) }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            values[name] = value
        }
        for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] where (values[name] ?? "").isEmpty {
            throw .missing(path: path, name: name)
        }
        return S3Credentials(accessKeyID: values["AWS_ACCESS_KEY_ID"]!, secretAccessKey: values["AWS_SECRET_ACCESS_KEY"]!)
    }
}

/// Why the bucket's keys could not be had; never quotes a secret.
public enum S3CredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// A line that is neither `NAME=value`, blank, nor a `#` comment.
    case malformedLine(path: String, line: Int)
    /// The file lacks `AWS_ACCESS_KEY_ID` or `AWS_SECRET_ACCESS_KEY`.
    case missing(path: String, name: String)
    /// No file configured, no systemd credential, no environment variables.
    case noCredentials

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "Cannot read the storage credentials file \(path): \(reason)."
        case .malformedLine(let path, let line):
            "Line \(line) of the storage credentials file \(path) is not NAME=value (AWS_ACCESS_KEY_ID=…, AWS_SECRET_ACCESS_KEY=…)."
        case .missing(let path, let name):
            "The storage credentials file \(path) has no \(name)=… line."
        case .noCredentials:
            "No keys for the bucket: set storage_credentials_file, or give systemd's LoadCredential=\(S3CredentialsSource.credentialName):FILE, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY."
        }
    }
}
