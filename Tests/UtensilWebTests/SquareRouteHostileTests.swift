import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import UtensilWeb

/// `GET /squares/{id}.jpeg` as a hostile client uses it: ids that are almost ids, paths that
/// try to climb out, `Range` headers huge, negative, overlapping or many, and `If-None-Match`
/// games; and a utensil made before grid squares existed (an upgraded site), whose thumbnail
/// stands in. Every answer is 200, 206, 304, 404 or 416 with the right bytes — never a 500, a
/// crash, or a byte of another file.
@Suite struct SquareRouteHostileTests {
    static let id = MemoryBackend.id
    static let square = Data("square bytes, 540 px".utf8)  // 20 bytes.
    static let thumbnail = Data("thumbnail bytes".utf8)

    /// The gallery of ``MemoryBackend`` with its utensil's grid square written too.
    static func gallery() throws -> Gallery {
        let gallery = try Gallery()
        let squares = gallery.backend.root.appendingPathComponent("squares")
        try FileManager.default.createDirectory(at: squares, withIntermediateDirectories: true)
        try square.write(to: squares.appendingPathComponent("\(id).jpeg"))
        return gallery
    }

    @Test func idsThatAreAlmostIdsAndPathsThatClimbAreNotFound() async throws {
        let lower = Self.id.lowercased()
        let paths = [
            "/squares/\(Self.id)", "/squares/\(Self.id).", "/squares/\(Self.id).JPEG", "/squares/\(Self.id).jpg",
            "/squares/\(Self.id).png", "/squares/\(Self.id).jpeg.jpeg", "/squares/\(Self.id)..jpeg", "/squares/.\(Self.id).jpeg",
            "/squares/\(Self.id.dropLast()).jpeg", "/squares/\(Self.id)0.jpeg", "/squares/{\(Self.id)}.jpeg",
            "/squares/\(Self.id.replacingOccurrences(of: "-", with: "")).jpeg", "/squares/\(Self.id.replacingOccurrences(of: "-", with: "_")).jpeg",
            "/squares/\(Self.id)%00.jpeg", "/squares/\(Self.id).jpeg%00", "/squares/\(Self.id).jpeg%2f..%2f..%2fweb-users",
            "/squares/%2e%2e%2fthumbnails%2f\(Self.id).jpeg", "/squares/..%2F..%2Fweb-users", "/squares/..%5cweb-users",
            "/squares/%2E%2E/%2E%2E/web-users", "/squares/", "/squares",
            "/squares/\(String(repeating: "A", count: 8192)).jpeg", "/squares/\(Self.id).\(String(repeating: "j", count: 9))",
            "/squares/\(Self.id.replacingOccurrences(of: "6", with: "\u{FF16}")).jpeg",  // A full-width digit.
            "/squares/\(Self.id.replacingOccurrences(of: "A", with: "%41")).jpeg",
            "/squares/00000000-0000-0000-0000-000000000000.jpeg", "/squares/\(UUID().uuidString).jpeg",
        ]
        try await Self.gallery().test { client in
            for path in paths {
                let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.union(["%"])) ?? path
                try await client.execute(uri: encoded, method: .get) { response in
                    #expect(response.status == .notFound, "\(path): \(response.status)")
                    #expect(response.body.readableBytes < 4096 && !response.text.contains("square bytes"), "\(path)")
                }
            }
            // The id's lower-case spelling, and a trailing slash (the router ignores it), are the same square.
            for path in ["/squares/\(lower).jpeg", "/squares/\(Self.id).jpeg/"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(Data(buffer: response.body) == Self.square, "\(path)")
                }
            }
        }
    }

    @Test func rangesHugeNegativeOverlappingOrManyGetTheRightBytesOrTheWhole() async throws {
        let size = Int64(Self.square.count)
        let partial: [(String, Range<Int>)] = [
            ("bytes=0-0", 0..<1), ("bytes=19-", 19..<20), ("bytes=-1", 19..<20), ("bytes=-20", 0..<20), ("bytes=-999999", 0..<20),
            ("bytes=3-9223372036854775807", 3..<20), ("bytes=3-99999999999999999999999", 3..<20), ("bytes=0-18446744073709551616", 0..<20),
            ("bytes= 4 - 7 ", 4..<8),
        ]
        let unsatisfiable = ["bytes=20-", "bytes=20-25", "bytes=9223372036854775807-", "bytes=-0", "bytes=9223372036854775806-9223372036854775807"]
        let whole = [
            "bytes=0-1,1-2", "bytes=0-19,0-19,0-19", String(repeating: "bytes=0-0,", count: 2000) + "bytes=0-0",
            "bytes=" + (0..<1000).map { "\($0)-\($0)" }.joined(separator: ","), "bytes=--1", "bytes=-5-3", "bytes=5-2",
            "bytes=99999999999999999999999-", "bytes=-99999999999999999999999", "bytes=0x0-0x5", "bytes=+1-2", "bytes=1-+2",
            "bytes=1e3-", "bytes=", "bytes=-", "bytes 0-5", "BYTES=0-5", "items=0-5", "bytes=٠-٥",
        ]
        try await Self.gallery().test { client in
            for (asked, part) in partial {
                try await client.execute(uri: "/squares/\(Self.id).jpeg", method: .get, headers: [.range: asked]) { response in
                    #expect(response.status == .partialContent, "\(asked)")
                    #expect(Data(buffer: response.body) == Self.square.subdata(in: part), "\(asked)")
                    #expect(response.headers[.contentRange] == "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(size)", "\(asked)")
                }
            }
            for asked in unsatisfiable {
                try await client.execute(uri: "/squares/\(Self.id).jpeg", method: .get, headers: [.range: asked]) { response in
                    #expect(response.status == .rangeNotSatisfiable, "\(asked)")
                    #expect(response.headers[.contentRange] == "bytes */\(size)", "\(asked)")
                    #expect(response.body.readableBytes == 0, "\(asked)")
                }
            }
            for asked in whole {
                try await client.execute(uri: "/squares/\(Self.id).jpeg", method: .get, headers: [.range: asked]) { response in
                    #expect(response.status == .ok, "\(asked.prefix(60))")
                    #expect(Data(buffer: response.body) == Self.square, "\(asked.prefix(60))")
                }
            }
        }
    }

    @Test func ifNoneMatchGamesAnswerNotModifiedOnlyForThisVersion() async throws {
        try await Self.gallery().test { client in
            let uri = "/squares/\(Self.id).jpeg"
            let etag = try await client.execute(uri: uri, method: .get) { try #require($0.headers[.eTag]) }
            let thumbnailETag = try await client.execute(uri: "/thumbnails/\(Self.id).jpeg", method: .get) { try #require($0.headers[.eTag]) }
            #expect(etag != thumbnailETag)
            let unquoted = String(etag.dropFirst().dropLast())
            let notModified = [etag, "W/\(etag)", "\"other\", \(etag)", " \(etag) ", "*", "\"a\",\"b\",   W/\(etag)"]
            let modified = [
                unquoted, "\"\(unquoted)x\"", thumbnailETag, "W/", "\"\"", ",,,,", String(repeating: "\"x\",", count: 4000) + "\"y\"",
                "\(etag)x", "x\(etag)",
            ]
            for match in notModified {
                try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: match]) { response in
                    #expect(response.status == .notModified, "\(match)")
                    #expect(response.body.readableBytes == 0, "\(match)")
                    #expect(response.headers[.eTag] == etag, "\(match)")
                }
            }
            for match in modified {
                try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: match]) { response in
                    #expect(response.status == .ok, "\(match.prefix(60))")
                    #expect(Data(buffer: response.body) == Self.square, "\(match.prefix(60))")
                }
            }
            // With a range as well: a match wins (304); a mismatch gets the range.
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag, .range: "bytes=0-5"]) { response in
                #expect(response.status == .notModified)
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: thumbnailETag, .range: "bytes=0-5"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(buffer: response.body) == Self.square.prefix(6))
            }
        }
    }

    @Test func aUtensilWithoutItsSquareGetsItsThumbnailUntilTheSquareIsMade() async throws {
        let gallery = try Self.gallery()
        let squareFile = gallery.backend.root.appendingPathComponent("squares/\(Self.id).jpeg")
        let thumbnailFile = gallery.backend.root.appendingPathComponent("thumbnails/\(Self.id).jpeg")
        try FileManager.default.removeItem(at: squareFile)  // Made before there were grid squares.
        try await gallery.test { client in
            let uri = "/squares/\(Self.id).jpeg?v=1"
            let standIn = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == Self.thumbnail)
                #expect(response.headers[.cacheControl] == "public, no-cache", "never kept for a year")
                return try #require(response.headers[.eTag])
            }
            // Ranges and revalidation of the stand-in are the thumbnail's.
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-8"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.text == "thumbnail")
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=15-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */15")
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: standIn]) { response in
                #expect(response.status == .notModified)
                #expect(response.headers[.cacheControl] == "public, no-cache")
            }
            // The square made (`rethumb --missing`): the browser's revalidation gets it at once.
            try Self.square.write(to: squareFile)
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: standIn]) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == Self.square)
                #expect(response.headers[.cacheControl]?.contains("max-age=31536000") == true)
            }
            // Neither square nor thumbnail (a utensil half gone, or none at all): not found.
            try FileManager.default.removeItem(at: squareFile)
            try FileManager.default.removeItem(at: thumbnailFile)
            for headers: HTTPFields in [[:], [.range: "bytes=0-3"], [.ifNoneMatch: "*"], [.ifNoneMatch: standIn]] {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.status == .notFound, "\(headers)")
                }
            }
        }
    }
}
