import NIOCore
import Testing
@testable import UtensilWeb

/// The upload's multipart reader (multipart-kit plus the bounds an open listener needs),
/// fed as a network would feed it.
@Suite struct FormDataReaderTests {
    static let body = Array((
        "--XyZ\r\nContent-Disposition: form-data; name=\"category\"\r\n\r\nKnives\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Bread=knife; long.jpg\"\r\n"
            + "Content-Type: image/jpeg\r\n\r\nJPEG\r\nbytes\r\n--XyZ--\r\n").utf8)

    /// Every event of `bytes` fed in `chunk`-byte pieces, then ``FormDataReader/finish()``.
    static func read(_ bytes: [UInt8], chunk: Int) throws -> [FormDataReader.Event] {
        let reader = try #require(FormDataReader(boundary: "XyZ"))
        var events: [FormDataReader.Event] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            events += try reader.feed(ByteBuffer(bytes: bytes[start..<end]))
            start = end
        }
        try reader.finish()
        return events
    }

    /// Data events joined, so that the same body read in other pieces compares equal.
    static func merged(_ events: [FormDataReader.Event]) -> [FormDataReader.Event] {
        var out: [FormDataReader.Event] = []
        for event in events {
            if case .data(let more) = event, case .data(let earlier)? = out.last {
                out[out.count - 1] = .data(earlier + more)
            } else {
                out.append(event)
            }
        }
        return out
    }

    @Test func fieldsAndFilesComeOutInOrderHoweverTheBodyIsCut() throws {
        let whole = Self.merged(try Self.read(Self.body, chunk: Self.body.count))
        #expect(whole.count == 6)
        guard case .part(let field) = whole[0], case .part(let file) = whole[3] else {
            Issue.record("expected two parts: \(whole)")
            return
        }
        #expect(FormDataReader.parameter("name", in: field["content-disposition"] ?? "") == "category")
        #expect(whole[1] == .data(Array("Knives".utf8)))
        #expect(FormDataReader.parameter("filename", in: file["content-disposition"] ?? "") == "Bread=knife; long.jpg")
        #expect(file["content-type"] == "image/jpeg")
        #expect(whole[4] == .data(Array("JPEG\r\nbytes".utf8)))
        for chunk in [1, 2, 3, 7, 64] {
            #expect(Self.merged(try Self.read(Self.body, chunk: chunk)) == whole, "in pieces of \(chunk)")
        }
    }

    @Test func aBodyCutAnywhereBeforeItsClosingBoundaryIsRefused() throws {
        let closing = Self.body.count - "--\r\n".count
        for length in [0, 5, 40, 60, 120, Self.body.count - 12, closing - 1] {
            #expect(throws: FormDataReader.Failure.self, "cut at \(length)") {
                try Self.read(Array(Self.body[..<length]), chunk: 16)
            }
        }
        // The closing boundary without its line end, or with an epilogue, is a whole body.
        _ = try Self.read(Array(Self.body[..<closing]) + Array("--".utf8), chunk: 16)
        _ = try Self.read(Self.body + Array("epilogue\r\n".utf8), chunk: 16)
    }

    @Test func headersAndPartsAreBounded() throws {
        let longLine = Array(("--XyZ\r\nX-Long: " + String(repeating: "a", count: 20_000) + "\r\n\r\nx\r\n--XyZ--\r\n").utf8)
        #expect(throws: FormDataReader.Failure.self) { try Self.read(longLine, chunk: 1024) }
        let manyLines = Array(("--XyZ\r\n" + String(repeating: "X-A: " + String(repeating: "b", count: 90) + "\r\n", count: 400)
            + "\r\nx\r\n--XyZ--\r\n").utf8)
        #expect(throws: FormDataReader.Failure.self) { try Self.read(manyLines, chunk: 1024) }
        let noBoundary = Array(String(repeating: "preamble ", count: 3_000).utf8)
        #expect(throws: FormDataReader.Failure.self) { try Self.read(noBoundary, chunk: 1024) }
        let manyParts = Array((String(repeating: "--XyZ\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nv\r\n", count: 1_001) + "--XyZ--\r\n").utf8)
        #expect(throws: FormDataReader.Failure.self) { try Self.read(manyParts, chunk: 4096) }
        let brokenHeader = Array("--XyZ\r\nNo colon here\r\n\r\nx\r\n--XyZ--\r\n".utf8)
        #expect(throws: FormDataReader.Failure.self) { try Self.read(brokenHeader, chunk: 8) }
    }
}
