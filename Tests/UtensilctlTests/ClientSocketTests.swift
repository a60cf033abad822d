import Foundation
import Glibc
import Testing
import UtensilTestSupport
import UtensilControlProtocol

/// The real `utensilctl` binary against a real Unix socket answered by `CannedDaemon`.
@Suite(.serialized, .tags(.spawnsProcesses)) struct ClientSocketTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func statusPrintsATableOrExactlyThePayload() throws {
        let daemon = try CannedDaemon(replying: .success(Samples.status, for: .status))
        defer { daemon.stop() }
        let human = try CtlProcess.run(["status", "--socket", daemon.socketPath])
        #expect(human.status == 0)
        #expect(human.standardError == "")
        #expect(human.outputLines.first == "utensild 0.1.0, pid 4242, up 1h 02m")
        #expect(human.standardOutput.contains("  inbox        /srv/utensils/inbox\n"))
        #expect(human.standardOutput.contains("  last error   none\n"))

        let machine = try CtlProcess.run(["--json", "status"], environment: ["UTENSIL_SOCKET": daemon.socketPath])
        #expect(machine.status == 0)
        #expect(machine.outputLines.count == 1)
        let object = try json(machine.standardOutput)
        #expect(object["pid"] as? Int == 4242)
        #expect(object["lastError"] is NSNull)
        #expect(object["uptimeSeconds"] as? Int == 3725)
        #expect(daemon.requests == [.status, .status])
    }

    @Test func jsonBeforeOrAfterTheCommandPrintsTheSame() throws {
        let page = UtensilPage(utensils: [Samples.utensil("Spoon")], next: nil)
        let daemon = try CannedDaemon(replying: .success(page, for: .list))
        defer { daemon.stop() }
        let after = try CtlProcess.run(["list", "--json", "--socket", daemon.socketPath])
        let before = try CtlProcess.run(["--json", "--socket", daemon.socketPath, "list"])
        #expect(after.status == 0 && before.status == 0)
        #expect(after.standardOutput == before.standardOutput)
        let object = try json(after.standardOutput)
        #expect(Set(object.keys) == ["utensils", "next"])
        #expect(object["next"] is NSNull)
        let utensil = try #require((object["utensils"] as? [[String: Any]])?.first)
        #expect(utensil["createdAt"] as? String == "2026-11-22T10:15:02.123Z")
        #expect(utensil["extension"] as? String == "jpg")
    }

    @Test func listSendsItsArgumentsAndHintsAtTheNextPage() throws {
        let page = UtensilPage(utensils: [Samples.utensil("Spoon\u{1B}[2J")], next: "c2")
        let daemon = try CannedDaemon(replying: .success(page, for: .list))
        defer { daemon.stop() }
        let outcome = try CtlProcess.run(
            ["list", "--search", "spo", "--sort", "name", "--limit", "1", "--socket", daemon.socketPath])
        #expect(outcome.status == 0)
        #expect(daemon.requests == [.list(search: "spo", sort: .name, limit: 1)])
        #expect(outcome.outputLines.first?.hasPrefix("ID") == true)
        #expect(outcome.standardOutput.contains("Spoon\\u{1B}[2J"))
        #expect(!outcome.standardOutput.contains("\u{1B}"))
        #expect(outcome.outputLines.last == "More: utensilctl list --search spo --sort name --limit 1 --after c2")
    }

    @Test func emptyCatalogSaysWhereToDropTheFirstPhoto() throws {
        let daemon = try CannedDaemon { request in
            let reply: ControlReply = request.command == .status
                ? .success(Samples.status, for: .status) : .success(UtensilPage(utensils: []), for: .list)
            return .init(lines: [CannedDaemon.line(reply)])
        }
        defer { daemon.stop() }
        let outcome = try CtlProcess.run(["list", "--socket", daemon.socketPath])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains("The catalog is empty."))
        #expect(outcome.standardOutput.contains("/srv/utensils/inbox"))
        #expect(daemon.requests.map(\.command) == [.list, .status])
    }

    @Test func notFoundIsExitOneWithTheMessageOnStandardError() throws {
        let daemon = try CannedDaemon(replying: .failure(.notFound, "No utensil has the id or name \"Spork\"."))
        defer { daemon.stop() }
        let outcome = try CtlProcess.run(["show", "Spork", "--socket", daemon.socketPath])
        #expect(outcome.status == 1)
        #expect(outcome.standardOutput == "")
        #expect(outcome.standardError == "utensilctl: No utensil has the id or name \"Spork\".\n")
        #expect(daemon.requests == [.show("Spork")])
    }

    @Test func permissionDeniedReplyIsExit77() throws {
        let daemon = try CannedDaemon(replying: .failure(.permissionDenied, "Only members of the socket's group may delete."))
        defer { daemon.stop() }
        let outcome = try CtlProcess.run(["delete", "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F", "--socket", daemon.socketPath])
        #expect(outcome.status == 77)
        #expect(outcome.standardError.hasPrefix("utensilctl: Only members"))
    }

    @Test func missingSocketIsExit69NamingThePath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-daemon-\(UUID().uuidString).sock").path
        let outcome = try CtlProcess.run(["status"], environment: ["UTENSIL_SOCKET": path])
        #expect(outcome.status == 69)
        #expect(outcome.standardError.contains(path))
        #expect(outcome.standardError.contains("systemctl status utensild"))
        #expect(outcome.standardError.split(separator: "\n").count == 1)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the binary as another user"))
    func socketWithoutPermissionIsExit77() throws {
        let daemon = try CannedDaemon(replying: .success(Samples.status, for: .status))
        defer { daemon.stop() }
        chmod(daemon.folder.path, 0o755)
        chmod(daemon.socketPath, 0)
        // A copy of the binary that the unprivileged user may surely execute.
        let binary = daemon.folder.appendingPathComponent("utensilctl")
        try FileManager.default.copyItem(at: try #require(CtlProcess.executable), to: binary)
        chmod(binary.path, 0o755)
        let outcome = try CtlProcess.run(
            ["status", "--socket", daemon.socketPath],
            wrappedIn: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], executable: binary)
        #expect(outcome.status == 77)
        #expect(outcome.standardError.contains("permission denied"))
        #expect(outcome.standardError.contains(daemon.socketPath))
        #expect(daemon.requests.isEmpty)
    }

    @Test func usageErrorsAreExit64() throws {
        for arguments in [["retry"], ["retry", "a.jpg", "--all"], ["list", "--limit", "0"], ["list", "--sort", "size"], ["frobnicate"], []] {
            let outcome = try CtlProcess.run(arguments + ["--socket", "/nonexistent.sock"])
            #expect(outcome.status == 64, "\(arguments)")
            #expect(outcome.standardOutput == "", "\(arguments)")
        }
    }

    @Test func changingCommandsSendWhatTheySay() throws {
        let utensil = Samples.utensil("Ladle")
        let daemon = try CannedDaemon { request in
            let reply: ControlReply = switch request.command {
            case .rename, .delete: .success(utensil, for: request.command)
            default: .success(RetryOutcome(retried: ["a.jpg", "b\u{7}.png"]), for: .retry)
            }
            return .init(lines: [CannedDaemon.line(reply)])
        }
        defer { daemon.stop() }
        let rename = try CtlProcess.run(["rename", utensil.id, "Ladle", "--socket", daemon.socketPath])
        #expect(rename.standardOutput == "Renamed \(utensil.id) to \"Ladle\".\n")
        let delete = try CtlProcess.run(["--json", "delete", utensil.id, "--socket", daemon.socketPath])
        #expect(try json(delete.standardOutput)["name"] as? String == "Ladle")
        let retry = try CtlProcess.run(["retry", "--all", "--socket", daemon.socketPath])
        #expect(retry.outputLines == ["Moved 2 files back into the inbox:", "  a.jpg", "  b\\u{7}.png"])
        let retryJSON = try CtlProcess.run(["retry", "a.jpg", "--json", "--socket", daemon.socketPath])
        #expect(retryJSON.standardOutput == "[\"a.jpg\",\"b\\u0007.png\"]\n")
        #expect(daemon.requests == [.rename(utensil.id, to: "Ladle"), .delete(utensil.id), .retryAll, .retry(file: "a.jpg")])
    }

    @Test func inconsistentCheckPrintsTheReportAndExitsOne() throws {
        let report = CheckReport(integrity: ["ok"], rowsWithoutFiles: ["A"], filesWithoutRows: [])
        let daemon = try CannedDaemon(replying: .success(report, for: .check))
        defer { daemon.stop() }
        let outcome = try CtlProcess.run(["check", "--socket", daemon.socketPath])
        #expect(outcome.status == 1)
        #expect(outcome.standardOutput.contains("rows without files  1\n  A\n"))
        #expect(outcome.standardError == "utensilctl: the catalog is inconsistent: 1 row without files. See the report above.\n")
    }

    @Test func eventsPrintOneLineEachUntilTheStreamEnds() throws {
        let ingested = EventInfo.ingested(Samples.utensil("Spoon"), inboxFile: "kitchen/Spoon.jpg", at: Samples.createdAt)
        // Another host's, with a shared catalog.
        let rejected = {
            var event = EventInfo(
                kind: .rejected, at: Samples.createdAt, inboxFile: "Fork.heic", reason: "unsupported-type",
                message: "Only JPEG and PNG.", host: "kitchen-2")
            event.seq = 1208
            return event
        }()
        let daemon = try CannedDaemon { _ in
            .init(lines: [.success(Subscription(), for: .events), .event(ingested), .event(rejected)].map(CannedDaemon.line),
                  thenClose: true)
        }
        defer { daemon.stop() }
        let machine = try CtlProcess.run(["events", "--json", "--socket", daemon.socketPath])
        #expect(machine.outputLines.count == 2)
        #expect(try json(machine.outputLines[0])["kind"] as? String == "ingested")
        #expect(try json(machine.outputLines[1])["reason"] as? String == "unsupported-type")
        #expect(try json(machine.outputLines[1])["host"] as? String == "kitchen-2")
        #expect(try json(machine.outputLines[1])["seq"] as? Int == 1208)
        #expect(machine.status == 69)
        #expect(machine.standardError.contains("event stream ended"))

        let human = try CtlProcess.run(["events", "--socket", daemon.socketPath])
        #expect(human.outputLines == [
            "2026-11-22 10:15:02  ingested  Spoon  ← kitchen/Spoon.jpg  6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F",
            "2026-11-22 10:15:02  rejected  Fork.heic  unsupported-type: Only JPEG and PNG.  on kitchen-2  #1208",
        ])

        // --since travels as the request's `since`.
        _ = try CtlProcess.run(["events", "--since", "1207", "--socket", daemon.socketPath])
        #expect(daemon.requests.last == .events(since: 1207))
    }

    @Test func previewIsLeftOutWhenNotATerminal() throws {
        var utensil = Samples.utensil("Spoon")
        utensil.preview = RGBPreview(width: 1, height: 1, rgb: Data([1, 2, 3]))
        let daemon = try CannedDaemon(replying: .success(utensil, for: .show))
        defer { daemon.stop() }
        let outcome = try CtlProcess.run(["show", "Spoon", "--preview", "--socket", daemon.socketPath])
        #expect(outcome.status == 0)
        #expect(daemon.requests == [.show("Spoon", preview: true)])
        #expect(!outcome.standardOutput.contains("▀"))
        #expect(outcome.standardError.contains("No preview"))
        #expect(outcome.standardOutput.contains("  original   /var/lib/utensild/originals/"))
    }

    @Test func unreadableReplyIsExitOne() throws {
        let daemon = try CannedDaemon { _ in .init(lines: ["this is not json"]) }
        defer { daemon.stop() }
        let outcome = try CtlProcess.run(["status", "--socket", daemon.socketPath])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.hasPrefix("utensilctl: cannot read utensild's reply"))
    }
}
