import Foundation

/// A streaming `multipart/form-data` parser: bytes go in as they arrive, parts come out as
/// header blocks and slices of data, so a file part is never held whole in memory.
struct MultipartParser: Sendable {
    enum Event: Sendable, Equatable {
        /// A part begins; header names in lower case.
        case part(headers: [String: String])
        case data([UInt8])
        case partEnd
    }

    enum Failure: Error, Equatable {
        case malformed(String)
    }

    static let maximumHeaderBytes = 16 * 1024
    static let maximumParts = 1000

    private enum State { case preamble, headers, body, afterDelimiter, done }

    private let delimiter: [UInt8]
    private let bodyDelimiter: [UInt8]
    private var state = State.preamble
    private var buffer: [UInt8] = []
    private var parts = 0

    /// `boundary` from the `Content-Type` header (1 to 70 characters, RFC 2046).
    init?(boundary: String) {
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        delimiter = Array("--\(boundary)".utf8)
        bodyDelimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// The boundary of a `multipart/form-data; boundary=…` content type.
    static func boundary(fromContentType contentType: String) -> String? {
        let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.first?.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() where field.lowercased().hasPrefix("boundary=") {
            var value = field.dropFirst("boundary=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    var isFinished: Bool { state == .done }

    mutating func feed(_ bytes: some Sequence<UInt8>) throws(Failure) -> [Event] {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while true {
            switch state {
            case .preamble:
                guard let found = buffer.firstRange(of: delimiter) else {
                    if buffer.count > Self.maximumHeaderBytes { throw .malformed("no boundary where the body should start") }
                    return events
                }
                buffer.removeSubrange(..<found.upperBound)
                state = .afterDelimiter
            case .afterDelimiter:
                guard buffer.count >= 2 else { return events }
                if buffer[0] == UInt8(ascii: "-") && buffer[1] == UInt8(ascii: "-") {
                    state = .done
                    buffer = []
                    return events
                }
                guard let lineEnd = buffer.firstRange(of: Array("\r\n".utf8)) else {
                    if buffer.count > 256 { throw .malformed("junk after a boundary") }
                    return events
                }
                guard buffer[..<lineEnd.lowerBound].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else {
                    throw .malformed("junk after a boundary")
                }
                buffer.removeSubrange(..<lineEnd.upperBound)
                parts += 1
                guard parts <= Self.maximumParts else { throw .malformed("more than \(Self.maximumParts) parts") }
                state = .headers
            case .headers:
                guard let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) ?? (buffer.starts(with: Array("\r\n".utf8)) ? 0..<2 : nil) else {
                    if buffer.count > Self.maximumHeaderBytes { throw .malformed("a part's headers are longer than 16 KiB") }
                    return events
                }
                let headers = try Self.parseHeaders(buffer[..<end.lowerBound])
                buffer.removeSubrange(..<end.upperBound)
                events.append(.part(headers: headers))
                state = .body
            case .body:
                if let found = buffer.firstRange(of: bodyDelimiter) {
                    if found.lowerBound > 0 { events.append(.data(Array(buffer[..<found.lowerBound]))) }
                    events.append(.partEnd)
                    buffer.removeSubrange(..<found.upperBound)
                    state = .afterDelimiter
                } else {
                    let safe = buffer.count - (bodyDelimiter.count - 1)
                    if safe > 0 {
                        events.append(.data(Array(buffer[..<safe])))
                        buffer.removeSubrange(..<safe)
                    }
                    return events
                }
            case .done:
                buffer = []
                return events
            }
        }
    }

    private static func parseHeaders(_ bytes: ArraySlice<UInt8>) throws(Failure) -> [String: String] {
        var headers: [String: String] = [:]
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("a part's header line has no colon") }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// A parameter of a `Content-Disposition` value: `name`, `filename`.
    static func parameter(_ name: String, in disposition: String) -> String? {
        var rest = Substring(disposition)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard rest.lowercased().hasPrefix(name.lowercased() + "=") else { continue }
            let value = rest.dropFirst(name.count + 1)
            if value.hasPrefix("\"") {
                var out = ""
                var escaped = false
                for character in value.dropFirst() {
                    if escaped {
                        out.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        return out
                    } else {
                        out.append(character)
                    }
                }
                return nil
            }
            return String(value.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
