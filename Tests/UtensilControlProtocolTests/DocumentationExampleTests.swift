import Foundation
import Testing
import UtensilControlProtocol

/// Every example line in `docs/PROTOCOL.md` is what the types really send and accept, byte
/// for byte, so the document cannot drift from the code.
@Suite struct DocumentationExampleTests {
    /// `(arrow, line)` for each `→ …` / `← …` line of the document.
    static let examples: [(arrow: Character, line: String)] = {
        let test = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        let document = test.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/PROTOCOL.md")
        let text = (try? String(contentsOf: document, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let arrow = line.first, arrow == "→" || arrow == "←", line.dropFirst().first == " " else { return nil }
            return (arrow, String(line.dropFirst(2)))
        }
    }()

    @Test func documentHasExamplesOfEveryCommandAndErrorCode() {
        #expect(Self.examples.count > 30)
        for command in ControlCommand.allCases {
            #expect(Self.examples.contains { $0.line.contains(#""command":"\#(command.rawValue)""#) }, "\(command)")
        }
        for code in ControlErrorCode.allCases where code != .requestTooLarge && code != .internal {
            #expect(Self.examples.contains { $0.line.contains(#""code":"\#(code.rawValue)""#) }, "\(code)")
        }
    }

    @Test func everyReplyLineDecodesAndEncodesToTheSameBytes() throws {
        for (_, line) in Self.examples.filter({ $0.arrow == "←" }) {
            let reply = try LineFraming.decode(ControlReply.self, from: Data(line.utf8))
            #expect(String(decoding: try LineFraming.encode(reply).dropLast(), as: UTF8.self) == line)
        }
    }

    @Test func everyRequestLineIsAcceptedOrRefusedAsItsReplySays() throws {
        for (index, example) in Self.examples.enumerated() where example.arrow == "→" {
            let answer = Self.examples[index + 1]
            #expect(answer.arrow == "←")
            let reply = try LineFraming.decode(ControlReply.self, from: Data(answer.line.utf8))
            let decoded = Result { () throws(ControlError) in try LineFraming.decodeRequest(Data(example.line.utf8)) }
            switch decoded {
            case .success(let request):
                #expect(String(decoding: try LineFraming.encode(request).dropLast(), as: UTF8.self) == example.line)
            case .failure(let error):
                #expect(reply.result == .failure(error), "\(example.line)")
            }
        }
    }
}
