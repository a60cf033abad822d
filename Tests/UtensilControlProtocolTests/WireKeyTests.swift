import Foundation
import Testing
import UtensilControlProtocol

/// The contract's JSON field names, checked on the encoded bytes rather than through Codable.
@Suite struct WireKeyTests {
    @Test func utensilKeys() throws {
        #expect(try Fixtures.keys(of: Fixtures.spoon) == [
            "id", "name", "extension", "createdAt", "width", "height", "bytes", "original", "thumbnail",
            "category", "addedBy", "host", "nearDuplicateOf", "updatedAt",
        ])
        #expect(try Fixtures.keys(of: Fixtures.spoonWithPreview) == [
            "id", "name", "extension", "createdAt", "width", "height", "bytes", "original", "thumbnail",
            "category", "addedBy", "host", "nearDuplicateOf", "updatedAt", "thumbnailJPEG", "previewRGB", "previewWidth", "previewHeight",
        ])
        let object = try Fixtures.object(of: Fixtures.spoonWithPreview)
        #expect(object["createdAt"] as? String == "2026-11-22T10:15:02.123Z")
        #expect(object["thumbnailJPEG"] as? String == "/9j/2Q==")
        #expect(object["previewRGB"] as? String == Data([255, 0, 0, 0, 0, 255]).base64EncodedString())
        #expect(object["previewWidth"] as? Int == 2)
        // Written as null when absent, so "none" differs from "an older daemon".
        #expect(object["category"] is NSNull && object["addedBy"] is NSNull && object["updatedAt"] is NSNull)
        // The host that ingested it, null when not recorded.
        #expect(object["host"] is NSNull)
        // The utensil it looks like a copy of, null when none.
        #expect(object["nearDuplicateOf"] is NSNull)
        var copy = Fixtures.spoon
        copy.nearDuplicateOf = NearDuplicateInfo(id: "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F", name: "Whisk", distance: 3)
        let near = try #require(try Fixtures.object(of: copy)["nearDuplicateOf"] as? [String: Any])
        #expect(near["id"] as? String == "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F" && near["name"] as? String == "Whisk")
        #expect(near["distance"] as? Int == 3 && near.count == 3)
        #expect(object["trashedAt"] == nil)
    }

    @Test func categoryKeys() throws {
        #expect(try Fixtures.keys(of: CategoryInfo(name: "Knives", count: 3)) == ["name", "count"])
    }

    @Test func pageWritesNextAsExplicitNull() throws {
        let object = try Fixtures.object(of: UtensilPage(utensils: [], next: nil))
        #expect(Set(object.keys) == ["utensils", "next"])
        #expect(object["next"] is NSNull)
        let withCursor = try Fixtures.object(of: UtensilPage(utensils: [], next: "c2"))
        #expect(withCursor["next"] as? String == "c2")
    }

    @Test func statusKeys() throws {
        let object = try Fixtures.object(of: Fixtures.status)
        #expect(Set(object.keys) == [
            "version", "pid", "uptimeSeconds", "inbox", "rejectedDir", "stateDir", "utensils", "queued",
            "inFlight", "ingested", "rejected", "lastError", "watching", "inboxMissing",
        ])
        #expect(object["lastError"] is NSNull)
    }

    @Test func rejectedCheckAndEventKeys() throws {
        #expect(try Fixtures.keys(of: Fixtures.rejected) == ["file", "reason", "message", "rejectedAt", "bytes"])
        #expect(try Fixtures.keys(of: Fixtures.check) == ["integrity", "rowsWithoutFiles", "filesWithoutRows", "uploadLeftovers", "stagedLeftovers", "ok"])
        #expect(try Fixtures.object(of: Fixtures.check)["ok"] as? Bool == false)
        let ingested = EventInfo.ingested(Fixtures.spoon, inboxFile: "Spoon.jpg", at: Fixtures.createdAt)
        #expect(try Fixtures.keys(of: ingested) == ["kind", "at", "inboxFile", "utensil"])
        let rejected = EventInfo.rejected(inboxFile: "a.heic", reason: "unsupported-type", message: "No.", at: .now)
        #expect(try Fixtures.keys(of: rejected) == ["kind", "at", "inboxFile", "reason", "message"])
    }

    @Test func replyKeys() throws {
        #expect(try Fixtures.keys(of: ControlReply.success(Fixtures.status, for: .status)) == ["v", "ok", "status"])
        #expect(try Fixtures.keys(of: ControlReply.success(Fixtures.spoon, for: .show)) == ["v", "ok", "utensil"])
        #expect(try Fixtures.keys(of: ControlReply.success(Subscription(), for: .events)) == ["v", "ok", "subscribed"])
        #expect(try Fixtures.object(of: ControlReply.success(Subscription(), for: .events))["subscribed"] as? Bool == true)
        let failure = try Fixtures.object(of: ControlReply.failure(.notFound, "No utensil is called Spork."))
        #expect(Set(failure.keys) == ["v", "ok", "error"])
        #expect(failure["v"] as? Int == 1)
        #expect(failure["ok"] as? Bool == false)
        let error = failure["error"] as? [String: Any]
        #expect(error?["code"] as? String == "not-found")
        #expect(error?["message"] as? String == "No utensil is called Spork.")
    }

    @Test func replyKeysOfEveryCommand() {
        #expect(ControlCommand.allCases.map(\.replyKey) == [
            "status", "list", "utensil", "deleted", "renamed", "rejected", "retried", "check", "subscribed",
            "categories", "categorized", "trash", "restored", "rethumb", "favorited", "unfavorited",
            "categoryRenamed", "categoryDeleted", "backup", "hosts", "duplicates", "notACopy",
        ])
        #expect(ControlCommand.eventKey == "event")
    }

    @Test func requestKeysLeaveOutUnsetArguments() throws {
        #expect(try Fixtures.keys(of: ControlRequest.status) == ["v", "command"])
        #expect(try Fixtures.keys(of: ControlRequest.retryAll) == ["v", "command", "all"])
        #expect(try Fixtures.keys(of: ControlRequest.show("x", preview: true)) == ["v", "command", "target", "preview"])
        #expect(try Fixtures.keys(of: ControlRequest.rename("id", to: "New")) == ["v", "command", "target", "newName"])
        #expect(try Fixtures.keys(of: ControlRequest.delete("id")) == ["v", "command", "target"])
        #expect(try Fixtures.keys(of: ControlRequest.setCategory("id", to: nil)) == ["v", "command", "target", "none"])
        #expect(try Fixtures.keys(of: ControlRequest.restore("id")) == ["v", "command", "target"])
        #expect(try Fixtures.keys(of: ControlRequest.rethumb(.utensils(["id"]))) == ["v", "command", "targets"])
        #expect(try Fixtures.keys(of: ControlRequest.rethumb(.missing)) == ["v", "command", "missing"])
        let list = try Fixtures.object(of: ControlRequest.list(search: "s", sort: .newestFirst, limit: 5, after: "c"))
        #expect(Set(list.keys) == ["v", "command", "search", "sort", "limit", "after"])
        #expect(list["sort"] as? String == "-created")
        #expect(list["command"] as? String == "list")
    }

    @Test func errorCodesAreTheStableStrings() {
        #expect(ControlErrorCode.allCases.map(\.rawValue) == [
            "not-found", "invalid-name", "duplicate-name", "permission-denied", "bad-request",
            "request-too-large", "unsupported-version", "busy", "internal",
        ])
    }

    @Test func timestampsHaveMillisecondsInUTC() throws {
        let date = Date(timeIntervalSince1970: 1_795_342_502.1234)
        #expect(ControlTimestamp.string(from: date) == "2026-11-22T10:15:02.123Z")
        #expect(ControlTimestamp.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ControlTimestamp.date(from: "2026-11-22T10:15:02Z") == Date(timeIntervalSince1970: 1_795_342_502))
        #expect(ControlTimestamp.string(from: Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(ControlTimestamp.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(ControlTimestamp.date(from: "yesterday") == nil)
        for text in ["2026-11-22T10:15:02.123Z", "2024-02-29T23:59:59.999Z", "1999-12-31T00:00:00.001Z"] {
            #expect(ControlTimestamp.date(from: text).map(ControlTimestamp.string(from:)) == text)
        }
    }
}
