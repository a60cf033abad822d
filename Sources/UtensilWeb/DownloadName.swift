import Foundation

/// The `Content-Disposition` of an original (RFC 6266, with RFC 8187's `filename*`): shown
/// inline, and saved under the utensil's name rather than its id, whatever that name holds.
///
/// `inline; filename="Creme brulee torch.jpg"; filename*=UTF-8''Cr%C3%A8me%20br%C3%BBl%C3%A9e%20torch.jpg`:
/// the quoted `filename` is an ASCII stand-in for clients that know no `filename*` (accents
/// dropped, anything else that is not printable ASCII, and `"`, `\`, `%`, `/`, as `_`); the
/// `filename*` is the name itself, percent-encoded. In both, control characters and slashes
/// become `_`, so no name can end the header, add a parameter or name a folder.
enum DownloadName {
    /// The header's value for the utensil `name` whose original has `fileExtension`.
    static func contentDisposition(name: String, fileExtension: String) -> String {
        let whole = safe(name) + "." + fileExtension
        return "inline; filename=\"\(asciiFallback(name) + "." + fileExtension)\"; filename*=UTF-8''\(percentEncoded(whole))"
    }

    /// `name` with control characters (C0, DEL, C1, line and paragraph separators), the
    /// bidirectional overrides that could show `exe.jpg` for `gpj.exe`, and both slashes as
    /// `_`; leading dots and spaces dropped (no hidden file); `utensil` when nothing stays.
    static func safe(_ name: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            let value = scalar.value
            let control = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            let bidi = value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            out.append(control || bidi || scalar == "/" || scalar == "\\" ? "_" : scalar)
        }
        let trimmed = String(out).drop { $0 == "." || $0 == " " }
        return trimmed.isEmpty ? "utensil" : String(trimmed)
    }

    /// The quoted-string stand-in: printable ASCII only, accents removed first (`é` → `e`).
    static func asciiFallback(_ name: String) -> String {
        // Canonical decomposition without its combining marks (`é` → `e` + U+0301 → `e`): the
        // standard library's Unicode data, not a locale's, so no download loads ICU's.
        let folded = safe(name).decomposedStringWithCanonicalMapping.unicodeScalars.filter {
            $0.properties.generalCategory != .nonspacingMark
        }
        var out = ""
        for scalar in folded {
            let printable = (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\" && scalar != "%"
            out.unicodeScalars.append(printable ? scalar : "_")
        }
        return out
    }

    /// RFC 8187's `value-chars`: every byte of the UTF-8 form outside `attr-char` as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let attrChar = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~".utf8)
        var out = ""
        for byte in text.utf8 {
            if attrChar.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
