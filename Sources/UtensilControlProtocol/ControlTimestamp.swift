import Foundation
import UtensilCore

/// Timestamps as the contract writes them: ISO 8601 UTC with milliseconds,
/// e.g. `2026-11-22T10:15:02.123Z`.
public enum ControlTimestamp {
    /// The wire form of `date`, rounded to the nearest millisecond.
    public static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, millisecondOfDay) = CivilDate.floorDivision(milliseconds, by: 86_400_000)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))."
            + "\(pad(millisecondOfDay % 1000, 3))Z"
    }

    /// Parses the wire form (rounded to the millisecond); whole seconds without a fraction,
    /// and other offsets than `Z`, are accepted too.
    public static func date(from string: String) -> Date? {
        let parsed = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string))
            ?? (try? Date.ISO8601FormatStyle().parse(string))
        return parsed.map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1000).rounded() / 1000) }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String { CivilDate.padded(value, width) }
}
