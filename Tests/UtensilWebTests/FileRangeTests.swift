import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import UtensilWeb

/// A stored rendition served by byte range (a resumed download, a video-style seek): one range
/// is answered with 206 and its `Content-Range`, a range past the end with 416, anything else
/// whole; `If-Range` with another version gets the whole new file.
@Suite struct FileRangeTests {
    static let id = MemoryBackend.id

    @Test func oneRangeIsServedAsPartialContent() async throws {
        try await Gallery().test { client in
            // "original bytes": 14 bytes.
            for (asked, body, contentRange) in [
                ("bytes=0-7", "original", "bytes 0-7/14"), ("bytes=9-", "bytes", "bytes 9-13/14"),
                ("bytes=-5", "bytes", "bytes 9-13/14"), ("bytes=9-99", "bytes", "bytes 9-13/14"),
            ] {
                try await client.execute(uri: "/originals/\(Self.id).png", method: .get, headers: [.range: asked]) { response in
                    #expect(response.status == .partialContent, "\(asked)")
                    #expect(response.text == body, "\(asked)")
                    #expect(response.headers[.contentRange] == contentRange, "\(asked)")
                    #expect(response.headers[.contentLength] == String(body.utf8.count), "\(asked)")
                    #expect(response.headers[.contentDisposition]?.contains("filename=\"Spoon.png\"") == true, "\(asked)")
                }
            }
            try await client.execute(uri: "/thumbnails/\(Self.id).jpeg", method: .get) { response in
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(response.headers[.contentLength] == "15")
            }
        }
    }

    @Test func aRangePastTheEndIsUnsatisfiableAndOddOnesGetTheWholeFile() async throws {
        try await Gallery().test { client in
            try await client.execute(uri: "/previews/\(Self.id).jpeg", method: .get, headers: [.range: "bytes=13-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */13")
            }
            for odd in ["bytes=0-1,4-5", "items=0-3", "bytes=5-2", "bytes=x-3", "bytes=-"] {
                try await client.execute(uri: "/previews/\(Self.id).jpeg", method: .get, headers: [.range: odd]) { response in
                    #expect(response.status == .ok, "\(odd)")
                    #expect(response.text == "preview bytes", "\(odd)")
                }
            }
        }
    }

    @Test func ifRangeWithAnotherVersionGetsTheWholeFile() async throws {
        try await Gallery().test { client in
            let etag = try await client.execute(uri: "/thumbnails/\(Self.id).jpeg", method: .get) { try #require($0.headers[.eTag]) }
            try await client.execute(
                uri: "/thumbnails/\(Self.id).jpeg", method: .get, headers: [.range: "bytes=0-8", .ifRange: etag]
            ) { response in
                #expect(response.status == .partialContent)
                #expect(response.text == "thumbnail")
            }
            try await client.execute(
                uri: "/thumbnails/\(Self.id).jpeg", method: .get, headers: [.range: "bytes=0-8", .ifRange: "\"another\""]
            ) { response in
                #expect(response.status == .ok)
                #expect(response.text == "thumbnail bytes")
            }
        }
    }

    @Test func byteRangesAreReadAsRFC9110Says() {
        #expect(ByteRange("bytes=0-0", size: 10) == .part(0..<1))
        #expect(ByteRange("bytes=-20", size: 10) == .part(0..<10))
        #expect(ByteRange("bytes=-0", size: 10) == .unsatisfiable)
        #expect(ByteRange("bytes=10-", size: 10) == .unsatisfiable)
        #expect(ByteRange("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange("bytes= 2-3", size: 10) == .part(2..<4))
        #expect(ByteRange("bytes=3-2", size: 10) == .whole)
    }
}
