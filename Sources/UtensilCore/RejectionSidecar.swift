import Foundation

/// The `<file name>.error.json` written beside every rejected file.
public struct RejectionSidecar: Codable, Sendable, Equatable {
    /// The dropped file's name (without folders), as dropped.
    public var file: String
    public var reason: RejectionReason
    /// One sentence that tells a person what to do.
    public var message: String
    /// ISO 8601 UTC with milliseconds.
    public var rejectedAt: String
    public var bytes: Int
    /// The name of the rejected file in `rejected/` (differs from `file` after a name clash).
    public var rejectedAs: String
    /// Where the drop was, relative to the inbox (differs from `file` for drops in sub-folders).
    public var inboxPath: String

    public init(
        file: String, reason: RejectionReason, message: String, rejectedAt: Date, bytes: Int,
        rejectedAs: String, inboxPath: String
    ) {
        self.file = file
        self.reason = reason
        self.message = message
        self.rejectedAt = Timestamp.string(from: rejectedAt)
        self.bytes = bytes
        self.rejectedAs = rejectedAs
        self.inboxPath = inboxPath
    }

    /// The sidecar's own file-name suffix.
    public static let suffix = ".error.json"

    /// Encodes as one JSON document with a stable key order.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and integers cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }
}

/// Timestamps as the contract writes them: ISO 8601 UTC with milliseconds.
public enum Timestamp {
    public static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec),
            Int(milliseconds - Int64(seconds) * 1000))
    }

    /// Parses what ``string(from:)`` writes (rounded to the millisecond); whole seconds
    /// without a fraction, and other offsets than `Z`, are accepted too.
    public static func date(from string: String) -> Date? {
        let parsed = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string))
            ?? (try? Date.ISO8601FormatStyle().parse(string))
        return parsed.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1000).rounded() / 1000) }
    }
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
