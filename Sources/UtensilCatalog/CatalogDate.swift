import Foundation
import GRDB

/// How the SQLite catalog stores a moment: the text GRDB has always written for a `Date`,
/// `yyyy-MM-dd HH:mm:ss.SSS` in UTC (sortable, readable with the sqlite3 CLI), but made and
/// read with plain arithmetic.
///
/// GRDB's own `Date` conversion goes through Foundation's `DateFormatter` and a `Calendar`
/// with a locale, which load ICU's locale, calendar and time-zone data (about 4 MB that then
/// stay resident in the daemon) for what is fixed-width digits in UTC.
enum CatalogDate {
    /// The stored text of `date`: to the nearest millisecond, as `DateFormatter` rounded.
    static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down))
        let (seconds, millisecond) = floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        var text = ""
        text.reserveCapacity(23)
        text += digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2) + " "
        text += digits(secondOfDay / 3600, 2) + ":" + digits(secondOfDay / 60 % 60, 2) + ":"
        text += digits(secondOfDay % 60, 2) + "." + digits(millisecond, 3)
        return text
    }

    /// The stored value as a `DatabaseValue`, for binding in queries.
    static func value(_ date: Date) -> DatabaseValue {
        text(date).databaseValue
    }

    /// The moment a stored value means: this catalog's text directly; anything else (a
    /// shorter SQLite date, a number) as GRDB reads it.
    static func date(from value: DatabaseValue) -> Date? {
        if case .string(let string) = value.storage, let date = date(fromText: string) {
            return date
        }
        return Date.fromDatabaseValue(value)
    }

    /// Parses exactly `yyyy-MM-dd HH:mm:ss.SSS`; nil for any other shape.
    static func date(fromText text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 23, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              bytes[19] == UInt8(ascii: "."),
              let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
              let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
              let millisecond = number(bytes, 20, 3),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        // As GRDB's calendar adds them up: whole seconds since 2001, then the nanoseconds.
        return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(millisecond * 1_000_000) / 1e9)
    }

    // MARK: - Arithmetic

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
        return (quotient, value - quotient * divisor)
    }

    /// Year, month, day of the proleptic Gregorian calendar, `days` after 1970-01-01
    /// (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to the given day (Howard Hinnant's `days_from_civil`).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func digits(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in bytes[start..<start + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
