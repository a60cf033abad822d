import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import UtensilWeb

/// `/originals/{id}.{ext}` names the download after the utensil (docs/WEB.md): an inline
/// `Content-Disposition` whose `filename*` is the name and whose `filename` is an ASCII
/// stand-in, for any name a catalog may hold — quotes, backslashes, slashes, control
/// characters, bidirectional overrides, emoji, scripts without Latin letters.
@Suite struct DownloadNameTests {
    static let id = MemoryBackend.id

    /// The two names of a `Content-Disposition` as a browser reads them: the quoted
    /// `filename` and the percent-decoded `filename*`; nil when the value is not of the form
    /// `inline; filename="…"; filename*=UTF-8''…` with nothing outside printable ASCII.
    static func parse(_ value: String) -> (fallback: String, name: String)? {
        guard value.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }),
              value.hasPrefix("inline; filename=\"")
        else { return nil }
        let afterQuote = value.dropFirst("inline; filename=\"".count)
        guard let close = afterQuote.firstIndex(of: "\"") else { return nil }
        let fallback = String(afterQuote[..<close])
        let rest = afterQuote[afterQuote.index(after: close)...]
        guard rest.hasPrefix("; filename*=UTF-8''") else { return nil }
        let encoded = rest.dropFirst("; filename*=UTF-8''".count)
        let attrChar = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~%")
        guard encoded.allSatisfy({ attrChar.contains($0) }), let name = encoded.removingPercentEncoding else { return nil }
        return (fallback, name)
    }

    /// (the utensil's name, the ASCII stand-in, the name saved by a browser that reads `filename*`)
    static let names: [(String, String, String)] = [
        ("Spoon", "Spoon.png", "Spoon.png"),
        ("Crème brûlée torch", "Creme brulee torch.png", "Crème brûlée torch.png"),
        ("Say \"cheese\"", "Say _cheese_.png", "Say \"cheese\".png"),
        ("back\\slash", "back_slash.png", "back_slash.png"),
        ("a/../b", "a_.._b.png", "a_.._b.png"),
        ("tab\there\r\nX-Evil: 1", "tab_here__X-Evil: 1.png", "tab_here__X-Evil: 1.png"),
        ("🥄 Spoon", "_ Spoon.png", "🥄 Spoon.png"),
        ("👩‍🍳 Chef's knife", "___ Chef's knife.png", "👩‍🍳 Chef's knife.png"),
        ("100% sure; filename=evil.exe", "100_ sure; filename=evil.exe.png", "100% sure; filename=evil.exe.png"),
        ("..hidden", "hidden.png", "hidden.png"),
        ("中文 勺子", "__ __.png", "中文 勺子.png"),
        ("\u{202E}gpj.exe", "_gpj.exe.png", "_gpj.exe.png"),
        ("del\u{7F}and\u{85}c1", "del_and_c1.png", "del_and_c1.png"),
        ("...", "utensil.png", "utensil.png"),
    ]

    @Test(arguments: names)
    func anOriginalIsSavedUnderItsUtensilsName(name: String, fallback: String, saved: String) async throws {
        try await Gallery(name: name).test { client in
            for method in [HTTPRequest.Method.get, .head] {
                try await client.execute(uri: "/originals/\(Self.id).png?v=1", method: method) { response in
                    #expect(response.status == .ok)
                    let value = try #require(response.headers[.contentDisposition], "\(method)")
                    let parsed = try #require(Self.parse(value), "\(value)")
                    #expect(parsed.fallback == fallback, "\(value)")
                    #expect(parsed.name == saved, "\(value)")
                    #expect(response.headers[.contentType] == "image/png", "shown inline, as the photo it is")
                }
            }
        }
    }

    @Test func previewsAndThumbnailsNameNoDownload() async throws {
        try await Gallery().test { client in
            for uri in ["/thumbnails/\(Self.id).jpeg", "/previews/\(Self.id).jpeg"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentDisposition] == nil, "\(uri)")
                }
            }
        }
    }

    @Test func theHeaderIsPlainASCIIWhateverTheName() {
        let hostile = (0..<0x250).compactMap(Unicode.Scalar.init).map { "x\(Character($0))y" }
            + ["", " ", "\u{0}", "\u{2028}", "\u{FEFF}", "a\u{301}", String(repeating: "é", count: 300)]
        for name in hostile {
            let value = DownloadName.contentDisposition(name: name, fileExtension: "jpg")
            #expect(Self.parse(value) != nil, "\(name.unicodeScalars.map { $0.value }): \(value)")
        }
    }
}
