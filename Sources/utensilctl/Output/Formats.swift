import Foundation

/// How numbers, sizes, times and durations look in the human output.
enum Formats {
    /// `48213` → `47.1 KiB`; below 1 KiB, bytes.
    static func bytes(_ count: Int) -> String {
        guard count >= 1024 else { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        return rounded >= 100 ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }

    /// `2026-11-22 11:15:02` in `timeZone` (the local one by default).
    static func dateTime(_ date: Date, in timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "??" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }

    /// `93784` → `1d 2h 03m`, `3725` → `1h 02m`, `65` → `1m 05s`, `42` → `42s`.
    static func duration(seconds: Int) -> String {
        let days = seconds / 86_400
        let hours = seconds / 3600 % 24
        let minutes = seconds / 60 % 60
        let rest = seconds % 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if days > 0 { return "\(days)d \(hours)h \(two(minutes))m" }
        if hours > 0 { return "\(hours)h \(two(minutes))m" }
        if minutes > 0 { return "\(minutes)m \(two(rest))s" }
        return "\(rest)s"
    }

    /// `1 file`, `2 files`.
    static func count(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(value) \(value == 1 ? singular : plural ?? singular + "s")"
    }
}
