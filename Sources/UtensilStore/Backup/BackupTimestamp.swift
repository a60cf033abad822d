import Foundation

/// `backup.json`'s timestamps: ISO 8601 UTC with milliseconds, as everywhere in utensild.
enum BackupTimestamp {
    static func string(from date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
