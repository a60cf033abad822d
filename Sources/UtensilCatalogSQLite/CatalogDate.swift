import Foundation
import GRDB
import UtensilCore

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
        let (seconds, millisecond) = CivilDate.floorDivision(milliseconds, by: 1000)
        let (days, secondOfDay) = CivilDate.floorDivision(seconds, by: 86_400)
        let (year, month, day) = CivilDate.civil(fromDays: days)
        var text = ""
        text.reserveCapacity(23)
        text += CivilDate.padded(year, 4) + "-" + CivilDate.padded(month, 2) + "-" + CivilDate.padded(day, 2) + " "
        text += CivilDate.padded(secondOfDay / 3600, 2) + ":" + CivilDate.padded(secondOfDay / 60 % 60, 2) + ":"
        text += CivilDate.padded(secondOfDay % 60, 2) + "." + CivilDate.padded(millisecond, 3)
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
        let seconds = CivilDate.days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        // As GRDB's calendar adds them up: whole seconds since 2001, then the nanoseconds.
        return Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200) + Double(millisecond * 1_000_000) / 1e9)
    }

    // MARK: - Arithmetic

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in bytes[start..<start + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
