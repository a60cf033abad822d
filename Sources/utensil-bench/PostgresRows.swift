import Foundation
import Glibc
import UtensilCatalogModel

/// The rows of ``ScaleCatalog`` for a PostgreSQL catalog: `rows` utensils written on standard
/// output in the text format of `COPY utensils (…) FROM STDIN`, every column as the daemon's
/// PostgreSQL backend writes it (the derived `category_key` and `sort_key` too, from the
/// record itself). bench/postgres.py pipes them into `psql`; the catalog's own migrations
/// made the table.
struct PostgresRows {
    let rows: Int
    let host: String

    /// The columns, in the order each line gives them (`COPY utensils (columns) FROM STDIN`).
    static let columns = [
        "id", "name", "name_key", "search_key", "extension", "created_at", "width", "height", "bytes", "sha256",
        "source_key", "name_claim", "content_claim", "category", "category_key", "added_by", "updated_at",
        "trashed_at", "sort_key", "host",
    ]

    /// Rows per write to standard output.
    static let rowsPerWrite = 10_000

    func run() {
        let output = FileHandle.standardOutput
        var chunk = ""
        chunk.reserveCapacity(Self.rowsPerWrite * 300)
        for row in 0..<rows {
            Self.append(ScaleCatalog.record(row, host: host), to: &chunk)
            if (row + 1) % Self.rowsPerWrite == 0 || row == rows - 1 {
                output.write(Data(chunk.utf8))
                chunk.removeAll(keepingCapacity: true)
            }
        }
    }

    /// One line of `record`'s ``columns``.
    static func append(_ record: UtensilRecord, to line: inout String) {
        let fields: [String?] = [
            record.id.uuidString, record.name, record.nameKey, record.searchKey, record.fileExtension,
            timestamp(record.createdAt), String(record.width), String(record.height), String(record.bytes),
            record.sha256, record.sourceKey, record.nameClaim, record.contentClaim, record.category,
            record.categoryKey, record.addedBy, record.updatedAt.map(timestamp), record.trashedAt.map(timestamp),
            record.sortKey, record.host,
        ]
        for (index, field) in fields.enumerated() {
            if index > 0 { line.append("\t") }
            if let field { line.append(escaped(field)) } else { line.append("\\N") }
        }
        line.append("\n")
    }

    /// `date` as PostgreSQL reads a `timestamptz` exactly: UTC, to the microsecond.
    static func timestamp(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = micros / 1_000_000
        let fraction = micros % 1_000_000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-\(padded(Int(parts.tm_mday), 2)) "
            + "\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
            + ".\(padded(Int(fraction), 6))+00"
    }

    /// `text` with COPY's special characters (backslash, tab, line breaks) escaped.
    static func escaped(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return text }
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
