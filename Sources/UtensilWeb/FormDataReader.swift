import Foundation
import MultipartKit
import NIOCore

/// A streaming `multipart/form-data` reader: bytes go in as they arrive, parts come out as
/// header blocks and slices of data, so a file part is never held whole in memory.
///
/// The framing is vapor's multipart-kit (`MultipartKit.MultipartParser`); this type adds what
/// an upload from the open web needs and multipart-kit leaves out: a bound on the bytes of a
/// part's headers (multipart-kit gathers them without one), a bound on the number of parts,
/// and telling a body that ended at its closing boundary from one cut off (``finish()``).
/// `Content-Disposition` parameters are read by ``parameter(_:in:)``, which follows quoted
/// strings: multipart-kit's own reader splits at every `=`, so `filename="a=b.jpg"` would
/// lose its name.
struct FormDataReader {
    enum Event: Sendable, Equatable {
        /// A part begins; header names in lower case.
        case part(headers: [String: String])
        case data([UInt8])
        case partEnd
    }

    enum Failure: Error, Equatable {
        case malformed(String)
    }

    /// Bytes that may go by without any part content: a preamble, or a part's headers.
    static let maximumHeaderBytes = 16 * 1024
    static let maximumParts = 1000
    /// Bytes handed to multipart-kit at a time, so that ``maximumHeaderBytes`` is exceeded
    /// by at most this much before it is noticed.
    static let sliceBytes = 4 * 1024

    private let parser: MultipartKit.MultipartParser
    private let collector: Collector

    /// `boundary` from the `Content-Type` header (1 to 70 characters, RFC 2046).
    init?(boundary: String) {
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        parser = MultipartKit.MultipartParser(boundary: boundary)
        let collector = Collector()
        parser.onHeader = { name, value in collector.header(name: name, value: value) }
        parser.onBody = { body in collector.body(&body) }
        parser.onPartComplete = { collector.partComplete() }
        self.collector = collector
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

    /// The events the next bytes of the body complete.
    func feed(_ bytes: ByteBuffer) throws(Failure) -> [Event] {
        var rest = bytes
        while rest.readableBytes > 0 {
            let slice = rest.readSlice(length: min(Self.sliceBytes, rest.readableBytes))!
            do {
                try parser.execute(slice)
            } catch {
                throw .malformed("its framing is broken")
            }
            collector.quietBytes += slice.readableBytes
            if let failure = collector.failure { throw failure }
            if collector.quietBytes > Self.maximumHeaderBytes {
                throw .malformed(collector.parts == 0 ? "no boundary where the body should start" : "a part's headers are longer than 16 KiB")
            }
        }
        return collector.take()
    }

    /// Checks, after the last bytes, that the body ended at its closing boundary (`--B--`)
    /// rather than being cut off.
    ///
    /// multipart-kit reports no such end; but after the closing boundary it ignores what
    /// follows, while anywhere else a header line is a header (or content, or broken framing).
    /// So a header line is fed as a probe: only a finished body stays silent.
    func finish() throws(Failure) {
        let ended = Failure.malformed("the body ends before its closing boundary")
        guard collector.lastWasPartEnd, collector.pending.isEmpty else { throw ended }
        collector.heardAnything = false
        do {
            try parser.execute(ByteBuffer(string: "\nX-End-Probe: 1\r\n"))
        } catch {
            throw ended
        }
        guard !collector.heardAnything else { throw ended }
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

    /// Turns multipart-kit's callbacks into ``Event``s. A part's headers come out when its
    /// first content (or its end) does, since multipart-kit reports no end of headers.
    private final class Collector {
        var pending: [Event] = []
        /// The headers of the part being read, until its content begins.
        var headers: [String: String] = [:]
        var headerBytes = 0
        var inPart = false
        var parts = 0
        /// Bytes fed since the last callback: a preamble or one header line being gathered.
        var quietBytes = 0
        var lastWasPartEnd = false
        var heardAnything = false
        var failure: Failure?

        func header(name: String, value: String) {
            heard()
            headerBytes += name.utf8.count + value.utf8.count + 4
            if headerBytes > FormDataReader.maximumHeaderBytes { failure = .malformed("a part's headers are longer than 16 KiB") }
            headers[name.lowercased()] = value
        }

        func body(_ body: inout ByteBuffer) {
            heard()
            beginPartIfNeeded()
            if let bytes = body.readBytes(length: body.readableBytes), !bytes.isEmpty { pending.append(.data(bytes)) }
        }

        func partComplete() {
            heard()
            beginPartIfNeeded()
            pending.append(.partEnd)
            inPart = false
            lastWasPartEnd = true
        }

        func take() -> [Event] {
            defer { pending = [] }
            return pending
        }

        private func heard() {
            quietBytes = 0
            lastWasPartEnd = false
            heardAnything = true
        }

        private func beginPartIfNeeded() {
            guard !inPart else { return }
            parts += 1
            if parts > FormDataReader.maximumParts { failure = .malformed("more than \(FormDataReader.maximumParts) parts") }
            pending.append(.part(headers: headers))
            headers = [:]
            headerBytes = 0
            inPart = true
        }
    }
}
