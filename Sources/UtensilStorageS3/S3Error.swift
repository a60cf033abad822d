/// Why an S3 request did not do what was asked, in the words a person needs to act on it.
public enum S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer from the endpoint (refused, reset, timed out): the server is down or slow, or
    /// `storage_endpoint` is wrong. Worth retrying.
    case unreachable(endpoint: String, reason: String)
    /// The server refused the credentials or the signature (403: `SignatureDoesNotMatch`,
    /// `InvalidAccessKeyId`, `AccessDenied` …): fix the keys in the credentials file or the
    /// bucket's policy.
    case credentialsRefused(endpoint: String, code: String, message: String)
    /// The bucket does not exist on that endpoint.
    case noSuchBucket(endpoint: String, bucket: String)
    /// There is no object with that key.
    case noSuchKey(String)
    /// A create-only write (`If-None-Match: *`) found an object with that key (412); nothing
    /// was written.
    case alreadyExists(String)
    /// The bytes read back are not the bytes written (a checksum differs).
    case integrity(key: String, expected: String, actual: String)
    /// Any other refusal or failure of the server (its HTTP status and S3 error code).
    case server(status: Int, code: String, message: String, key: String)
    /// `storage_endpoint` is not an `http://` or `https://` URL with a host.
    case invalidEndpoint(String)
    /// The server answered something that is not S3 (an XML body that cannot be read).
    case malformedAnswer(String)

    /// Whether trying again later may succeed (the server down, slow or failing), as opposed to
    /// a configuration to fix or an answer about the object.
    public var isTransient: Bool {
        switch self {
        case .unreachable: true
        case .server(let status, _, _, _): status >= 500 || status == 429
        default: false
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let endpoint, let reason):
            "The object storage at \(endpoint) does not answer (\(reason)): is it running and reachable, and is storage_endpoint right?"
        case .credentialsRefused(let endpoint, let code, let message):
            "The object storage at \(endpoint) refused our credentials (\(code): \(message)): check the keys in storage_credentials_file (or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY), storage_region and the bucket's policy."
        case .noSuchBucket(let endpoint, let bucket):
            "There is no bucket \(bucket) at \(endpoint): create it, or correct the bucket in storage."
        case .noSuchKey(let key): "There is no object \(key)."
        case .alreadyExists(let key): "The object \(key) exists already; it was not replaced."
        case .integrity(let key, let expected, let actual):
            "The object \(key) is not what was written: its checksum is \(actual), not \(expected)."
        case .server(let status, let code, let message, let key):
            "The object storage failed on \(key): HTTP \(status) \(code) \(message)"
        case .invalidEndpoint(let endpoint):
            "The storage endpoint \"\(endpoint)\" is not an http:// or https:// URL with a host (storage_endpoint)."
        case .malformedAnswer(let what): "The object storage answered something that is not S3: \(what)"
        }
    }
}
