import Foundation
import Testing
import UtensilControlProtocol

@Suite struct RoundTripTests {
    @Test(arguments: Fixtures.requests)
    func request(_ request: ControlRequest) throws {
        let line = try LineFraming.encode(request)
        #expect(try LineFraming.decode(ControlRequest.self, from: line) == request)
        #expect(try LineFraming.decodeRequest(line) == request)
    }

    /// Each command's payload, written as the server writes it and read back through the
    /// `ControlCall` a client sends: the same value, under exactly the command's one key.
    @Test func successRepliesOfEveryCommand() throws {
        try roundTrip(.status, Fixtures.status)
        try roundTrip(.list(), UtensilPage(utensils: [Fixtures.spoon], next: nil))
        try roundTrip(.list(), UtensilPage(utensils: [Fixtures.spoon, Fixtures.spoonWithPreview], next: "cursor-1"))
        try roundTrip(.show("Spoon", preview: true), Fixtures.spoonWithPreview)
        try roundTrip(.delete(Fixtures.spoon.id), Fixtures.trashedSpoon)
        try roundTrip(.rename(Fixtures.spoon.id, to: "Spoon"), Fixtures.spoon)
        try roundTrip(.rejected, [Fixtures.rejected])
        try roundTrip(.retry(file: "Spoon!!.jpg"), RetryOutcome(retried: ["Spoon!!.jpg"]))
        try roundTrip(
            .retryAll, RetryOutcome(retried: ["a.jpg"], notRetried: [RetryFailure(file: "b.jpg", message: "No room.")]),
            besides: ["notRetried"])
        try roundTrip(.check, Fixtures.check)
        try roundTrip(.events(), Subscription())
        try roundTrip(.events(since: 1200), Subscription())
        try roundTrip(.categories, [CategoryInfo(name: "Knives", count: 3)])
        try roundTrip(.setCategory(Fixtures.spoon.id, to: nil), Fixtures.spoon)
        try roundTrip(.trash, [Fixtures.trashedSpoon])
        try roundTrip(.restore(Fixtures.spoon.id), Fixtures.spoon)
        try roundTrip(.rethumb(.missing), RethumbReport(queued: 2))
        try roundTrip(.hosts, [
            HostInfo(
                name: "kitchen-a", version: "0.1.0", state: .up, startedAt: Fixtures.createdAt,
                lastSeen: Fixtures.createdAt, queued: 1, ingested: 10, rejected: 3),
            HostInfo(
                name: "kitchen-b", version: "0.1.0", state: .gone, startedAt: Fixtures.createdAt,
                lastSeen: Fixtures.createdAt, stoppedAt: Fixtures.createdAt, queued: 0, ingested: 0, rejected: 0),
        ])
    }

    private func roundTrip<Payload>(
        _ call: ControlCall<Payload>, _ payload: Payload, besides: Set<String> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let line = LineFraming.line(.success(payload, for: call.request.command))
        #expect(try call.decodeReply(Data(line.utf8)) == .success(payload), sourceLocation: sourceLocation)
        #expect(
            try Fixtures.keys(ofLine: line) == besides.union(["v", "ok", call.request.command.replyKey]),
            sourceLocation: sourceLocation)
    }

    @Test func eventLines() throws {
        for event in [
            EventInfo.ingested(Fixtures.spoon, inboxFile: "kitchen/Spoon.jpg", at: Fixtures.createdAt),
            .rejected(inboxFile: "Fork.heic", reason: "unsupported-type", message: "Not a photo.", at: Fixtures.createdAt),
        ] {
            let line = LineFraming.line(.event(event))
            #expect(try LineFraming.decodeEvent(Data(line.utf8)) == .success(event))
            #expect(try Fixtures.keys(ofLine: line) == ["v", "ok", "event"])
        }
    }

    @Test(arguments: ControlErrorCode.allCases)
    func failureReply(_ code: ControlErrorCode) throws {
        let error = ControlError(code, "Something about \(code.rawValue).")
        let line = Data(LineFraming.line(.failure(error)).utf8)
        #expect(try ControlCall.status.decodeReply(line) == .failure(error))
        #expect(try ControlCall.show("x").decodeReply(line) == .failure(error))
        #expect(!ControlReply.failure(error).ok)
    }

    @Test func previewSurvivesAsBase64() throws {
        let line = LineFraming.line(.success(Fixtures.spoonWithPreview, for: .show))
        let info = try ControlCall.show("Spoon").decodeReply(Data(line.utf8)).get()
        let pixel = try #require(info.preview).pixel(x: 1, y: 0)
        #expect(pixel.red == 0 && pixel.green == 0 && pixel.blue == 255)
        #expect(info.thumbnailJPEG == Data([0xFF, 0xD8, 0xFF, 0xD9]))
    }

    @Test func lineIsOneLineEvenWithLineBreaksInValues() throws {
        var info = Fixtures.spoon
        info.name = "Spoon\nLadle\r\u{2028}"
        let line = try LineFraming.encode(ControlReply.success(info, for: .show))
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        #expect(line.dropLast().contains(UInt8(ascii: "\r")) == false)
        #expect(try ControlCall.show("Spoon").decodeReply(line) == .success(info))
    }

    @Test func crlfLineDecodes() throws {
        let line = Data(#"{"v":1,"command":"status"}"#.utf8) + Data("\r\n".utf8)
        #expect(try LineFraming.decodeRequest(line) == .status)
    }
}

extension ControlRequest: CustomTestStringConvertible {
    public var testDescription: String { String(decoding: (try? LineFraming.encode(self)) ?? Data(), as: UTF8.self) }
}
