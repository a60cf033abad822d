import Foundation
import UtensilControlProtocol

/// Replies the canned daemon sends.
enum Samples {
    static let createdAt = ControlTimestamp.date(from: "2026-11-22T10:15:02.123Z")!

    static func utensil(_ name: String, id: String = "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F") -> UtensilInfo {
        UtensilInfo(
            id: id, name: name, fileExtension: "jpg", createdAt: createdAt, width: 4032, height: 3024, bytes: 48213,
            original: "/var/lib/utensild/originals/\(id).jpg", thumbnail: "/var/lib/utensild/thumbnails/\(id).jpeg")
    }

    static let status = StatusInfo(
        version: "0.1.0", pid: 4242, uptimeSeconds: 3725, inbox: "/srv/utensils/inbox",
        rejectedDir: "/srv/utensils/rejected", stateDir: "/var/lib/utensild", utensils: 2, queued: 1, inFlight: 0,
        ingested: 2, rejected: 1, lastError: nil, watching: "inotify", inboxMissing: false)
}
