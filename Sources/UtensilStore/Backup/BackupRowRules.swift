import Foundation
import UtensilCatalogModel
import UtensilCore

/// What a row of a backup's catalog must be before `utensild restore` loads it: what a drop
/// becomes at ingest. A name follows ``UtensilName``'s rules as stored (normalised, trimmed)
/// and is one a visible photo file could carry; a category one a visible inbox folder could
/// be; the extension one of ``PhotoExtension`` in lower case; the checksum lower-case hex
/// SHA-256; sizes positive and bounded; dates from 2000 on and not over a year ahead; who
/// added it and its host what utensild records.
public struct BackupRowRules: CatalogRowRules {
    /// The earliest date a row may hold: 1 January 2000, UTC.
    public static let earliest = Date(timeIntervalSince1970: 946_684_800)
    /// How far past `now` a date may lie (a clock somewhat ahead is not refused).
    public static let aheadAllowed: TimeInterval = 366 * 86_400
    /// The widest and tallest photo a row may describe.
    public static let maximumSide = 1 << 20
    /// The largest original a row may describe (1 TiB).
    public static let maximumBytes = 1 << 40
    /// The most bytes of a user name or a source key.
    static let maximumKeyBytes = 256
    /// The most decoder crashes a count may hold.
    static let maximumCrashes = 1_000_000

    let now: Date

    public init(now: Date = Date()) {
        self.now = now
    }

    public func problem(with record: UtensilRecord) -> String? {
        guard let photoExtension = PhotoExtension(rawValue: record.fileExtension) else {
            return "the extension \(Self.quoted(record.fileExtension)), which is not one of \(PhotoExtension.listed) in lower case"
        }
        if let problem = Self.nameProblem(record.name, fileExtension: photoExtension.rawValue) { return problem }
        if let category = record.category, let problem = Self.categoryProblem(category) { return problem }
        if !Self.isSHA256(record.sha256) { return "the checksum \(Self.quoted(record.sha256)), which is not 64 lower-case hex digits" }
        for (what, value, range) in [
            ("width", record.width, 1...Self.maximumSide), ("height", record.height, 1...Self.maximumSide),
            ("size", record.bytes, 1...Self.maximumBytes),
        ] where !range.contains(value) {
            return "the \(what) \(value), not between \(range.lowerBound) and \(range.upperBound)"
        }
        for (what, date) in [("creation date", record.createdAt), ("change date", record.updatedAt), ("trash date", record.trashedAt)] {
            if let date, let problem = dateProblem(date) { return "the \(what) \(problem)" }
        }
        if let user = record.addedBy, let problem = Self.userProblem(user) { return problem }
        if let host = record.host, let problem = Self.hostProblem(host) { return problem }
        if let key = record.sourceKey, !Self.isKey(key) { return "the source key \(Self.quoted(key)), which is not one utensild writes" }
        return nil
    }

    public func problem(withUser user: String) -> String? {
        Self.userProblem(user)
    }

    public func problem(with crash: CatalogDecoderCrash) -> String? {
        if !Self.isKey(crash.sourceKey) { return "the source key \(Self.quoted(crash.sourceKey)), which is not one utensild writes" }
        if !(0...Self.maximumCrashes).contains(crash.crashes) { return "the count \(crash.crashes), not between 0 and \(Self.maximumCrashes)" }
        return nil
    }

    // MARK: The rules

    /// A name a visible photo file `<name>.<extension>` could carry, stored as ``UtensilName`` makes it.
    static func nameProblem(_ name: String, fileExtension: String) -> String? {
        let valid: UtensilName
        do {
            valid = try UtensilName(validating: name)
        } catch {
            return "a name that \(error.problem)"
        }
        if valid.value != name { return "the name \(quoted(name)), which is not as utensild stores a name (normalised, without white space around it)" }
        if name.contains("/") { return "the name \(quoted(name)), which holds a slash (/)" }
        let fileName = Array((name + "." + fileExtension).utf8)
        if fileName.count > CarriedName.fileNameBytes { return "a name longer than a file name can hold (\(fileName.count) bytes)" }
        if DropVisibility.isInvisible(name: fileName, isDirectory: false) {
            return "the name \(quoted(name)), which no photo can carry (the inbox ignores \(quoted(name + "." + fileExtension)))"
        }
        return nil
    }

    /// A category a visible folder of the inbox could be, stored as ``UtensilName`` makes it.
    static func categoryProblem(_ category: String) -> String? {
        let valid: UtensilName
        do {
            valid = try UtensilName(validating: category)
        } catch {
            return "a category that \(error.problem)"
        }
        let bytes = Array(category.utf8)
        if valid.value != category || category.contains("/") || bytes.count > CarriedName.fileNameBytes
            || DropVisibility.isInvisible(name: bytes, isDirectory: true)
        {
            return "the category \(quoted(category)), which is not the name of a folder the inbox takes drops from"
        }
        return nil
    }

    /// Not before 2000 nor over a year after now, as the end of "the creation date …".
    func dateProblem(_ date: Date) -> String? {
        if date < Self.earliest { return "\(date), before 2000" }
        if date > now.addingTimeInterval(Self.aheadAllowed) { return "\(date), more than a year from now" }
        return nil
    }

    /// A user name as utensild records one (the Unix user's or a web user's): 1 to 256 bytes,
    /// no white space, control or invisible character, as the end of "… has …".
    static func userProblem(_ user: String) -> String? {
        let fits = !user.isEmpty && user.utf8.count <= maximumKeyBytes
            && !user.unicodeScalars.contains { $0.properties.isWhitespace || VisibleText.hides($0) }
        return fits ? nil : "the user name \(quoted(user)), which is not one utensild records"
    }

    /// A `host_name`: 1 to 63 of A-Z a-z 0-9 . -, not dots alone (the configuration's rule).
    static func hostProblem(_ host: String) -> String? {
        let scalars = host.unicodeScalars
        let fits = (1...63).contains(scalars.count) && !scalars.allSatisfy { $0 == "." }
            && scalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-") }
        return fits ? nil : "the host \(quoted(host)), which is not a host name (1 to 63 of A-Z a-z 0-9 . -)"
    }

    /// A source key: a file's identity (decimal numbers and colons), with `@` and a hex digest.
    static func isKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= maximumKeyBytes
            && key.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ":@-".unicodeScalars.contains($0)) }
    }

    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// Text from the backup, quoted, with what could hide or break a line escaped.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return "\"" + VisibleText.escaped(shown, special: { $0 == "\"" || $0 == "\\" ? "\\" + String($0) : nil }) + "\""
    }
}
