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

    @Test(arguments: Fixtures.payloads)
    func successReply(_ payload: ControlPayload) throws {
        let reply = ControlReply.success(payload)
        let decoded = try LineFraming.decode(ControlReply.self, from: LineFraming.encode(reply))
        #expect(decoded == reply)
    }

    @Test(arguments: ControlErrorCode.allCases)
    func failureReply(_ code: ControlErrorCode) throws {
        let reply = ControlReply.failure(code, "Something about \(code.rawValue).")
        let decoded = try LineFraming.decode(ControlReply.self, from: LineFraming.encode(reply))
        #expect(decoded == reply)
        #expect(!decoded.ok)
    }

    @Test func previewSurvivesAsBase64() throws {
        let line = try LineFraming.encode(ControlReply.success(.utensil(Fixtures.spoonWithPreview)))
        let decoded = try LineFraming.decode(ControlReply.self, from: line)
        guard case .success(.utensil(let info)) = decoded.result else {
            Issue.record("expected a utensil, got \(decoded)")
            return
        }
        let pixel = try #require(info.preview).pixel(x: 1, y: 0)
        #expect(pixel.red == 0 && pixel.green == 0 && pixel.blue == 255)
        #expect(info.thumbnailJPEG == Data([0xFF, 0xD8, 0xFF, 0xD9]))
    }

    @Test func lineIsOneLineEvenWithLineBreaksInValues() throws {
        var info = Fixtures.spoon
        info.name = "Spoon\nLadle\r\u{2028}"
        let line = try LineFraming.encode(ControlReply.success(.utensil(info)))
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        #expect(line.dropLast().contains(UInt8(ascii: "\r")) == false)
        #expect(try LineFraming.decode(ControlReply.self, from: line) == .success(.utensil(info)))
    }

    @Test func crlfLineDecodes() throws {
        let line = Data(#"{"v":1,"command":"status"}"#.utf8) + Data("\r\n".utf8)
        #expect(try LineFraming.decodeRequest(line) == .status)
    }
}

extension ControlRequest: CustomTestStringConvertible {
    public var testDescription: String { String(decoding: (try? LineFraming.encode(self)) ?? Data(), as: UTF8.self) }
}

extension ControlPayload: CustomTestStringConvertible {
    public var testDescription: String { key }
}
