import Foundation
import UtensilControlProtocol

/// Sample values of every message type, with millisecond timestamps so that they round-trip.
enum Fixtures {
    static let createdAt = ControlTimestamp.date(from: "2026-11-22T10:15:02.123Z")!

    static let spoon = UtensilInfo(
        id: "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F", name: "Spoon", fileExtension: "jpg",
        createdAt: createdAt, width: 4032, height: 3024, bytes: 48213,
        original: "/var/lib/utensild/originals/6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F.jpg",
        thumbnail: "/var/lib/utensild/thumbnails/6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F.jpeg")

    static var spoonWithPreview: UtensilInfo {
        var info = spoon
        info.thumbnailJPEG = Data([0xFF, 0xD8, 0xFF, 0xD9])
        info.preview = RGBPreview(width: 2, height: 1, rgb: Data([255, 0, 0, 0, 0, 255]))
        return info
    }

    static let status = StatusInfo(
        version: "0.1.0", pid: 4242, uptimeSeconds: 3600, inbox: "/srv/utensils/inbox",
        rejectedDir: "/srv/utensils/rejected", stateDir: "/var/lib/utensild", utensils: 12, queued: 1,
        inFlight: 2, ingested: 10, rejected: 3, lastError: nil, watching: "inotify", inboxMissing: false)

    static let rejected = RejectedInfo(
        file: "Spoon!!.jpg", reason: "corrupt-image", message: "The picture is damaged; export it again.",
        rejectedAt: createdAt, bytes: 48213)

    static let check = CheckReport(
        integrity: ["ok"], rowsWithoutFiles: ["6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F"],
        filesWithoutRows: ["/var/lib/utensild/thumbnails/stray.jpeg"])

    static let requests: [ControlRequest] = [
        .status, .list(), .list(search: "spo", sort: .name, limit: 20, after: "abc"),
        .list(category: "Knives", addedBy: "alice"), .show("Spoon"), .show("Spoon", preview: true), .delete(spoon.id),
        .delete(spoon.id, now: true), .rename(spoon.id, to: "Ladle"), .rejected, .retry(file: "Spoon!!.jpg"), .retryAll,
        .check, .events(), .events(since: 1200), .categories, .setCategory(spoon.id, to: "Knives"), .setCategory(spoon.id, to: nil), .trash,
        .restore(spoon.id), .restore(spoon.id, as: "Old spoon"), .rethumb(.all), .rethumb(.missing),
        .rethumb(.utensils([spoon.id, "2C3D4E5F-6A7B-4C8D-9E0F-1A2B3C4D5E6F"])),
        .favorite(spoon.id), .unfavorite(spoon.id), .list(category: "Knives", favorites: true),
        .categoryRename("Knifes", to: "Knives"), .categoryDelete("Misc"), .hosts, .duplicates,
        .notACopy(spoon.id, "2C3D4E5F-6A7B-4C8D-9E0F-1A2B3C4D5E6F"),
    ]

    static var trashedSpoon: UtensilInfo {
        var info = spoon
        info.trashedAt = createdAt
        info.purgeAt = createdAt.addingTimeInterval(30 * 86400)
        return info
    }

    /// The top-level keys of a line.
    static func keys(ofLine line: String) throws -> Set<String> {
        Set((try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]).keys)
    }

    /// The top-level keys of `value` encoded as the wire does.
    static func keys(of value: some Encodable) throws -> Set<String> {
        Set(try object(of: value).keys)
    }

    /// `value` encoded as the wire does and read back untyped.
    static func object(of value: some Encodable) throws -> [String: Any] {
        let line = try LineFraming.encode(value)
        return try JSONSerialization.jsonObject(with: line) as! [String: Any]
    }
}
