import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import UtensilWeb

/// The gallery as an installable app: its manifest and share target, its icons, its service
/// worker.
@Suite struct AppRouteTests {
    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    @Test func theManifestNamesTheIconsAndTheShareTarget() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/manifest.webmanifest", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/manifest+json")
                let manifest = response.json
                #expect(manifest["start_url"] as? String == "/" && manifest["display"] as? String == "standalone")
                let icons = (manifest["icons"] as? [[String: Any]] ?? []).compactMap { $0["src"] as? String }
                #expect(icons == ["/static/icon-192.png", "/static/icon-512.png"])
                let share = manifest["share_target"] as? [String: Any] ?? [:]
                #expect(share["action"] as? String == "/share" && share["method"] as? String == "POST")
                #expect(share["enctype"] as? String == "multipart/form-data")
                let files = ((share["params"] as? [String: Any])?["files"] as? [[String: Any]])?.first
                #expect(files?["name"] as? String == "files", "the field the upload route reads")
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.text.contains("<link rel=\"manifest\" href=\"/manifest.webmanifest\">"))
                #expect(response.headers[.contentSecurityPolicy]?.contains("manifest-src 'self'; worker-src 'self'") == true)
            }
        }
    }

    /// Each icon is a PNG of its size whose chunks check out and whose pixels are all there.
    @Test func theIconsArePNGsOfTheirSize() async throws {
        try await Gallery().test { client in
            for size in [192, 512] {
                let bytes = try await client.execute(uri: "/static/icon-\(size).png", method: .get) { response in
                    #expect(response.headers[.contentType] == "image/png")
                    return Array(response.body.readableBytesView)
                }
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
                var offset = 8
                var chunks: [String] = []
                var pixels: [UInt8] = []
                while offset + 12 <= bytes.count {
                    let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
                    let typed = Array(bytes[(offset + 4)..<(offset + 8 + length)])
                    let crc = bytes[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    #expect(AppIcon.crc32(typed) == crc, "\(size) px: the CRC of \(String(decoding: typed.prefix(4), as: UTF8.self))")
                    let type = String(decoding: typed.prefix(4), as: UTF8.self)
                    chunks.append(type)
                    if type == "IHDR" {
                        #expect(Array(typed[4..<12]) == [0, 0, UInt8(size >> 8), UInt8(size & 0xFF), 0, 0, UInt8(size >> 8), UInt8(size & 0xFF)])
                    }
                    if type == "IDAT" { pixels += typed.dropFirst(4) }
                    offset += 12 + length
                }
                #expect(chunks == ["IHDR", "PLTE", "IDAT", "IEND"] && offset == bytes.count)
                // zlib header, stored blocks, Adler-32: the rows of two-bit pixels, each after its filter byte.
                var stored = 0
                var at = 2
                while at < pixels.count - 4 {
                    let length = Int(pixels[at + 1]) | Int(pixels[at + 2]) << 8
                    stored += length
                    at += 5 + length
                }
                #expect(stored == ((size * 2 + 7) / 8 + 1) * size, "\(size) px")
            }
        }
    }

    @Test func theServiceWorkerKeepsThisVersionsShell() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/sw.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.text.contains("\"utensild-shell-\(StaticAssets.version)\""))
                #expect(response.text.contains("/static/gallery.js?v=\(StaticAssets.version)"))
            }
        }
    }

    /// The share target takes a signed-in user's photos as an upload does (this backend refuses
    /// every upload), then the gallery says how many went; a visitor gets 401.
    @Test func theShareTargetUploadsThenSaysHowManyWent() async throws {
        try await Gallery().test { client in
            let body = "--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"Whisk.jpg\"\r\nContent-Type: image/jpeg\r\n\r\nbytes\r\n--b--\r\n"
            let multipart: HTTPFields = [.contentType: "multipart/form-data; boundary=b"]
            try await client.execute(uri: "/share", method: .post, headers: multipart, body: ByteBuffer(string: body)) {
                #expect($0.status == .unauthorized)
            }
            let cookie = try await client.execute(
                uri: "/login", method: .post, headers: Self.formHeaders, body: .form("name=alice&password=correct+horse+battery")
            ) { String(($0.headers[.setCookie] ?? "").prefix { $0 != ";" }) }
            var signedIn = multipart
            signedIn[.cookie] = cookie
            try await client.execute(uri: "/share", method: .post, headers: signedIn, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/?shared=0&refused=1")
            }
            try await client.execute(uri: "/?shared=2&refused=1", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains(
                    "<p class=\"shared\" role=\"status\">2 photos sent to the inbox; each appears here once it is added. 1 photo could not be sent"))
            }
        }
    }
}
