import Foundation
import GRDB
import Testing
@testable import UtensilCatalogSQLite

/// The catalog's own date text is the text GRDB wrote before (so old and new rows sort and
/// compare together), and it reads back the moment GRDB read.
@Suite("SQLite catalog dates")
struct SQLiteCatalogDateTests {
    /// Moments from 1970 to 2100, at odd milliseconds and sub-millisecond fractions, leap days
    /// and the turns of years included.
    static let moments: [Date] = {
        var moments = [
            "1970-01-01 00:00:00.000", "2000-02-29 23:59:59.999", "2024-12-31 23:59:59.500",
            "2025-01-01 00:00:00.001", "2100-03-01 12:34:56.789",
        ].compactMap { CatalogDate.date(fromText: $0) }
        var seconds = 0.0
        while seconds < 4_102_444_800 {  // 2100-01-01
            moments.append(Date(timeIntervalSince1970: seconds))
            moments.append(Date(timeIntervalSince1970: seconds + 0.0015))
            moments.append(Date(timeIntervalSince1970: seconds + 0.123_456_7))
            seconds += 7_777_777.777
        }
        moments.append(Date())
        return moments
    }()

    @Test("stored text equals GRDB's DateFormatter text")
    func textMatchesGRDB() {
        #expect(Self.moments.count > 500)
        for moment in Self.moments {
            #expect(CatalogDate.value(moment) == moment.databaseValue, "\(moment.timeIntervalSince1970)")
        }
    }

    /// To the microsecond: near 2001-01-01, Foundation's calendar and this arithmetic may round
    /// the last bit of the `Double` apart.
    @Test("reading the text gives GRDB's moment")
    func readingMatchesGRDB() throws {
        for moment in Self.moments {
            let stored = moment.databaseValue
            let mine = try #require(CatalogDate.date(from: stored))
            let grdb = try #require(Date.fromDatabaseValue(stored))
            #expect(abs(mine.timeIntervalSince(grdb)) < 1e-6, "\(stored)")
            #expect(CatalogDate.value(mine) == stored)
        }
    }

    @Test("other stored shapes are read as GRDB reads them")
    func otherShapes() {
        for value in ["2024-05-06", "2024-05-06 07:08", "2024-05-06T07:08:09Z"].map(\.databaseValue)
            + [1_700_000_000.databaseValue, DatabaseValue.null] {
            #expect(CatalogDate.date(from: value) == Date.fromDatabaseValue(value), "\(value)")
        }
        #expect(CatalogDate.date(fromText: "2024-13-01 00:00:00.000") == nil)
        #expect(CatalogDate.date(fromText: "2024-01-01 00:00:00.00x") == nil)
    }
}
