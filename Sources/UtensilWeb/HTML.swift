import Foundation
import Hummingbird
import UtensilControlProtocol

/// Server-rendered HTML, built as plain strings: every value from the catalog or the request
/// goes through ``escape(_:)``; scripts and styles come only from ``StaticAssets`` routes (the
/// Content-Security-Policy allows no inline script).
enum HTML {
    /// `text` safe inside an element or a quoted attribute.
    static func escape(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// A query string from `pairs`, leaving out empty values: `?search=a%20b&sort=name`.
    static func query(_ pairs: [(String, String?)]) -> String {
        let parts = pairs.compactMap { name, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: queryValue) ?? "")
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    private static let queryValue: CharacterSet = {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    /// The whole document around `body`.
    static func page(title: String, body: String, bodyAttributes: String = "") -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <link rel="manifest" href="/manifest.webmanifest">
        <meta name="theme-color" content="#1e6f43">
        <link rel="icon" href="/static/icon-192.png">
        <link rel="apple-touch-icon" href="/static/icon-192.png">
        <link rel="stylesheet" href="/static/gallery.css?v=\(StaticAssets.version)">
        <script src="/static/gallery.js?v=\(StaticAssets.version)" defer></script>
        </head>
        <body\(bodyAttributes)>
        \(body)
        </body>
        </html>
        """
    }

    /// The bar at the top of every page: title, `extra` (the search form), and who is signed in.
    static func header(user: String?, extra: String = "") -> String {
        let account = user.map {
            """
            <div class="account"><a href="/trash">Trash</a> · Signed in as <a href="/account" title="Your account: change your password"><strong>\(escape($0))</strong></a> \
            <form method="post" action="/logout" class="inline"><button type="submit">Sign out</button></form></div>
            """
        } ?? "<div class=\"account\"><a href=\"/trash\">Trash</a> · <a href=\"/login\">Sign in</a></div>"
        return "<header class=\"top\">\n<h1><a href=\"/\">Utensils</a></h1>\n\(extra)\(account)\n</header>\n"
    }

    static func response(_ document: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document)))
    }

    /// The thumbnail's URL; `v` names the version, so browsers may keep it for a year.
    static func thumbnailURL(_ utensil: UtensilInfo) -> String {
        "/thumbnails/\(utensil.id).jpeg?v=\(version(utensil))"
    }

    /// The grid square's URL (the thumbnail's crop at 540 pixels), versioned like the thumbnail's.
    static func squareURL(_ utensil: UtensilInfo) -> String {
        "/squares/\(utensil.id).jpeg?v=\(version(utensil))"
    }

    /// A grid card's `srcset`: the 180-pixel thumbnail and the 540-pixel grid square, so that
    /// a 2× or 3× screen fetches the square and a 1× screen keeps the thumbnail.
    static func cardSourceSet(_ utensil: UtensilInfo) -> String {
        "\(thumbnailURL(utensil)) 180w, \(squareURL(utensil)) 540w"
    }

    /// A grid card's `sizes`: 180 CSS pixels in the wide layout, otherwise half the width
    /// less the page's padding and the gap (two columns).
    static let cardSizes = "(min-width: 40rem) 180px, calc(50vw - 1.375rem)"

    /// The display-size preview's URL, versioned like the thumbnail's.
    static func previewURL(_ utensil: UtensilInfo) -> String {
        "/previews/\(utensil.id).jpeg?v=\(version(utensil))"
    }

    static func originalURL(_ utensil: UtensilInfo) -> String {
        "/originals/\(utensil.id).\(utensil.fileExtension)?v=\(version(utensil))"
    }

    /// Changes whenever the utensil's files may have (a replaced photo sets `updatedAt`).
    static func version(_ utensil: UtensilInfo) -> String {
        let changed = utensil.updatedAt ?? utensil.createdAt
        return String(Int64((changed.timeIntervalSince1970 * 1000).rounded()), radix: 36) + "-" + String(utensil.bytes, radix: 36)
    }

    /// `1.2 MB`, `830 kB`, `512 bytes`.
    static func size(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) bytes" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return (value < 10 ? String(format: "%.1f", value) : String(Int(value.rounded()))) + " " + units[unit]
    }

    /// `<time datetime="2026-11-23T20:18:46.123Z">2026-11-23 20:18 UTC</time>`.
    static func time(_ date: Date) -> String {
        let wire = ControlTimestamp.string(from: date)
        let shown = wire.prefix(10) + " " + wire.dropFirst(11).prefix(5) + " UTC"
        return "<time datetime=\"\(wire)\">\(shown)</time>"
    }
}
