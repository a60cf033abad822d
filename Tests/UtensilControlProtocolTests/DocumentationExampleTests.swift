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

    /// Each reply line, read as the payload its request's `ControlCall` expects (an error
    /// reply as an error, an event line as an event), written again to the same bytes.
    @Test func everyReplyLineDecodesAndEncodesToTheSameBytes() throws {
        var request: ControlRequest?
        for (arrow, line) in Self.examples {
            if arrow == "→" {
                request = try? LineFraming.decodeRequest(Data(line.utf8))
                continue
            }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let written: String
            if object["ok"] as? Bool == false {
                let error = try #require(try ControlCall.status.decodeReply(Data(line.utf8)).failure, "\(line)")
                written = LineFraming.line(.failure(error))
            } else if object[ControlCommand.eventKey] != nil {
                #expect(request?.command == .events)
                written = LineFraming.line(.event(try LineFraming.decodeEvent(Data(line.utf8)).get()))
            } else {
                written = try Self.rewritten(line, answering: try #require(request, "no request before \(line)"))
            }
            #expect(written == line)
        }
    }

    @Test func everyRequestLineIsAcceptedOrRefusedAsItsReplySays() throws {
        for (index, example) in Self.examples.enumerated() where example.arrow == "→" {
            let answer = Self.examples[index + 1]
            #expect(answer.arrow == "←")
            let decoded = Result { () throws(ControlError) in try LineFraming.decodeRequest(Data(example.line.utf8)) }
            switch decoded {
            case .success(let request):
                #expect(String(decoding: try LineFraming.encode(request).dropLast(), as: UTF8.self) == example.line)
            case .failure(let error):
                #expect(try ControlCall.status.decodeReply(Data(answer.line.utf8)) == .failure(error), "\(example.line)")
            }
        }
    }

    /// A success reply to `request`, read through the `ControlCall` that builds the same request.
    private static func rewritten(_ line: String, answering request: ControlRequest) throws -> String {
        func again<Reply>(_ call: ControlCall<Reply>) throws -> String {
            #expect(call.request == request)
            return LineFraming.line(.success(try call.decodeReply(Data(line.utf8)).get(), for: request.command))
        }
        return switch request {
        case .status: try again(.status)
        case .list(let options): try again(.list(options))
        case .show(let target, let preview): try again(.show(target, preview: preview))
        case .delete(let id, let now): try again(.delete(id, now: now))
        case .rename(let id, let name): try again(.rename(id, to: name))
        case .rejected: try again(.rejected)
        case .retry(let file): try again(.retry(file: file))
        case .retryAll: try again(.retryAll)
        case .check: try again(.check)
        case .events(let since): try again(.events(since: since))
        case .categories: try again(.categories)
        case .setCategory(let id, let category): try again(.setCategory(id, to: category))
        case .trash: try again(.trash)
        case .restore(let id, let name): try again(.restore(id, as: name))
        case .rethumb(let selection): try again(.rethumb(selection))
        case .favorite(let id): try again(.favorite(id))
        case .unfavorite(let id): try again(.unfavorite(id))
        case .categoryRename(let category, let newName): try again(.categoryRename(category, to: newName))
        case .categoryDelete(let category): try again(.categoryDelete(category))
        case .hosts: try again(.hosts)
        case .duplicates: try again(.duplicates)
        case .notACopy(let id, let other): try again(.notACopy(id, other))
        case .backup(let destination):
            // Progress lines, then the summary.
            if case .progress(let progress) = try LineFraming.decodeBackupLine(Data(line.utf8)).get() {
                LineFraming.line(.backupProgress(progress))
            } else {
                try again(.backup(destination))
            }
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
