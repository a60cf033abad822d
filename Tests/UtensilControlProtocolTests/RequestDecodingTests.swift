import Foundation
import Testing
import UtensilControlProtocol

/// How the server turns a bad line into the error it sends back.
@Suite struct RequestDecodingTests {
    private func code(of line: String) -> ControlErrorCode? {
        do {
            _ = try LineFraming.decodeRequest(Data(line.utf8))
            return nil
        } catch {
            return error.code
        }
    }

    @Test func unknownCommandIsADecodingErrorAndABadRequest() throws {
        let line = Data(#"{"v":1,"command":"explode"}"#.utf8)
        #expect(throws: DecodingError.self) { try LineFraming.decode(ControlRequest.self, from: line) }
        #expect(throws: ControlError.self) { try LineFraming.decodeRequest(line) }
        do {
            _ = try LineFraming.decodeRequest(line)
        } catch {
            #expect(error.code == .badRequest)
            #expect(error.message.contains("explode"))
        }
    }

    @Test(arguments: [
        ("not json", ControlErrorCode.badRequest),
        ("[1,2]", .badRequest),
        (#"{"command":"status"}"#, .badRequest),
        (#"{"v":"1","command":"status"}"#, .badRequest),
        (#"{"v":2,"command":"status"}"#, .unsupportedVersion),
        (#"{"v":2,"command":"teleport"}"#, .unsupportedVersion),
        (#"{"v":1}"#, .badRequest),
        (#"{"v":1,"command":"show"}"#, .badRequest),
        (#"{"v":1,"command":"show","target":""}"#, .badRequest),
        (#"{"v":1,"command":"rename","target":"x"}"#, .badRequest),
        (#"{"v":1,"command":"retry"}"#, .badRequest),
        (#"{"v":1,"command":"retry","file":"a.jpg","all":true}"#, .badRequest),
        (#"{"v":1,"command":"list","limit":0}"#, .badRequest),
        (#"{"v":1,"command":"list","limit":"ten"}"#, .badRequest),
        (#"{"v":1,"command":"list","sort":"size"}"#, .badRequest),
    ])
    func badLines(_ line: String, _ expected: ControlErrorCode) {
        #expect(code(of: line) == expected)
    }

    @Test func unknownFieldsAreIgnored() throws {
        let request = try LineFraming.decodeRequest(Data(#"{"v":1,"command":"list","colour":"blue"}"#.utf8))
        #expect(request == .list())
    }

    @Test func malformedMessageNamesTheField() {
        do {
            _ = try LineFraming.decodeRequest(Data(#"{"v":1,"command":"list","limit":"ten"}"#.utf8))
            Issue.record("expected a bad request")
        } catch {
            #expect(error.message.contains("\"limit\""))
        }
    }

    @Test func cannedProtocolErrorsMatchTheDocumentedLimits() {
        #expect(ControlError.requestTooLarge.code == .requestTooLarge)
        #expect(ControlError.requestTooLarge.message.contains("65536"))
        #expect(ControlError.tooManyClients.code == .busy)
    }

    @Test func replyWithoutPayloadOrWithTwoIsRejected() {
        for line in [#"{"v":1,"ok":true}"#, #"{"v":1,"ok":true,"retried":[],"subscribed":true}"#] {
            #expect(throws: DecodingError.self) { try LineFraming.decode(ControlReply.self, from: Data(line.utf8)) }
        }
    }
}
