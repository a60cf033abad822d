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
        (#"{"v":1,"command":"rename","target":"x","newName":""}"#, .badRequest),
        (#"{"v":1,"command":"delete"}"#, .badRequest),
        (#"{"v":1,"command":"delete","target":"x","now":"yes"}"#, .badRequest),
        (#"{"v":1,"command":"restore"}"#, .badRequest),
        (#"{"v":1,"command":"set-category","target":"x"}"#, .badRequest),
        (#"{"v":1,"command":"set-category","target":"x","category":"Knives","none":true}"#, .badRequest),
        (#"{"v":1,"command":"show","target":"x","preview":1}"#, .badRequest),
        (#"{"v":1,"command":"rethumb"}"#, .badRequest),
        (#"{"v":1,"command":"rethumb","targets":[]}"#, .badRequest),
        (#"{"v":1,"command":"rethumb","targets":"x"}"#, .badRequest),
        (#"{"v":1,"command":"rethumb","all":true,"missing":true}"#, .badRequest),
        (#"{"v":1,"command":"rethumb","missing":true,"targets":["x"]}"#, .badRequest),
    ])
    func badLines(_ line: String, _ expected: ControlErrorCode) {
        #expect(code(of: line) == expected)
    }

    @Test func unknownFieldsAreIgnored() throws {
        let request = try LineFraming.decodeRequest(Data(#"{"v":1,"command":"list","colour":"blue"}"#.utf8))
        #expect(request == .list())
    }

    @Test(arguments: [
        (#"{"v":1,"command":"list","limit":"ten"}"#, #""limit""#),
        (#"{"v":1,"command":"show"}"#, #""target""#),
        (#"{"v":1,"command":"rename","target":"x"}"#, #""newName""#),
        (#"{"v":1,"command":"retry"}"#, #""file""#),
        (#"{"v":1,"command":"set-category","target":"x"}"#, #""category""#),
        (#"{"v":1,"command":"delete","target":"x","now":"yes"}"#, #""now""#),
    ])
    func badRequestMessageNamesTheField(_ line: String, _ field: String) {
        do {
            _ = try LineFraming.decodeRequest(Data(line.utf8))
            Issue.record("expected a bad request")
        } catch {
            #expect(error.code == .badRequest)
            #expect(error.message.contains(field), "\(error.message)")
            #expect(error.message.hasSuffix("."))
        }
    }

    @Test func argumentsACommandDoesNotTakeAreIgnored() throws {
        let line = Data(#"{"v":1,"command":"status","limit":"ten","target":7}"#.utf8)
        #expect(try LineFraming.decodeRequest(line) == .status)
    }

    @Test func cannedProtocolErrorsMatchTheDocumentedLimits() {
        #expect(ControlError.requestTooLarge.code == .requestTooLarge)
        #expect(ControlError.requestTooLarge.message.contains("65536"))
        #expect(ControlError.tooManyClients.code == .busy)
        #expect(ControlError.tooManyForUser(limit: 64).code == .busy)
        #expect(ControlError.tooManyForUser(limit: 64).message.contains("64"))
    }

    @Test func replyWithoutTheExpectedPayloadIsRejected() {
        for line in [#"{"v":1,"ok":true}"#, #"{"v":1,"ok":true,"subscribed":true}"#, #"{"ok":true,"retried":[]}"#] {
            #expect(throws: DecodingError.self) { try ControlCall.retryAll.decodeReply(Data(line.utf8)) }
        }
        #expect(throws: DecodingError.self) { try ControlCall.status.decodeReply(Data(#"{"v":1,"ok":true,"utensil":{}}"#.utf8)) }
    }
}
