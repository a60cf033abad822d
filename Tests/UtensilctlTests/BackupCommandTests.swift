import Foundation
import Glibc
import Testing
import UtensilTestSupport
import UtensilControlProtocol

/// `utensilctl backup` against a canned daemon: what it sends, how it shows the progress and
/// the summary, and its exit codes.
@Suite(.tags(.spawnsProcesses)) struct BackupCommandTests {
    static let summary = BackupInfo(
        destination: "/var/lib/utensild/backups/today", createdAt: Samples.createdAt, utensils: 3, trash: 1, categories: 2,
        files: 8, bytes: 123_456, linked: 8, copied: 0, missing: 0)

    /// A daemon that answers a backup with progress lines, then `final`.
    private func daemon(final: ControlReply = .success(summary, for: .backup), thenClose: Bool = false) throws -> CannedDaemon {
        let lines = [
            ControlReply.backupProgress(.init(phase: .catalog, done: 0, total: 4)),
            .backupProgress(.init(phase: .files, done: 2, total: 4)),
            .backupProgress(.init(phase: .files, done: 4, total: 4)),
        ].map(CannedDaemon.line)
        let last = CannedDaemon.line(final)
        return try CannedDaemon { _ in .init(lines: lines + (thenClose ? [] : [last]), thenClose: thenClose) }
    }

    @Test func sendsAnAbsoluteDestinationWithWhatTheCallerSeesAndPrintsTheSummary() throws {
        let canned = try daemon()
        defer { canned.stop() }
        let machine = try CtlProcess.run(["backup", "--json", "--socket", canned.socketPath, canned.folder.path + "/new/"])
        #expect(machine.status == 0, "\(machine.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(machine.standardOutput.utf8)) as? [String: Any])
        #expect(object["files"] as? Int == 8 && object["linked"] as? Int == 8)
        #expect(machine.outputLines.count == 1)
        var parent = stat()
        #expect(stat(canned.folder.path, &parent) == 0)
        #expect(canned.requests == [.backup(BackupDestination(
            path: canned.folder.path + "/new", parentDevice: UInt64(parent.st_dev), parentInode: UInt64(parent.st_ino)))])

        let human = try CtlProcess.run(["backup", "--socket", canned.socketPath, canned.folder.path + "/other"])
        #expect(human.status == 0)
        #expect(!human.standardOutput.contains("Backing up"))  // No progress unless on a terminal.
        #expect(human.outputLines.first == "Backed up 3 utensils (1 in the trash, 2 categories) into /var/lib/utensild/backups/today.")
        #expect(human.standardOutput.contains("8 files, 120 KiB: 8 hard-linked, 0 copied"))
    }

    @Test func showsTheProgressOnATerminal() throws {
        let canned = try daemon()
        defer { canned.stop() }
        let binary = try #require(CtlProcess.executable)
        let command = "\(binary.path) backup --socket \(canned.socketPath) \(canned.folder.path)/new"
        let outcome = try CtlProcess.run(["-q", "-e", "-c", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(outcome.status == 0, "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("Backing up: catalog written (4 utensils)"))
        #expect(outcome.standardOutput.contains("Backing up: 50% (2 of 4 utensils)"))
        #expect(outcome.standardOutput.contains("Backing up: 100% (4 of 4 utensils)"))
        #expect(outcome.standardOutput.contains("Backed up 3 utensils"))
    }

    @Test func refusalsAndAnEndWithoutSummaryHaveTheContractsExitCodes() throws {
        let exists = try daemon()
        defer { exists.stop() }
        let existing = try CtlProcess.run(["backup", "--socket", exists.socketPath, exists.folder.path])
        #expect(existing.status == 1)
        #expect(existing.standardError.contains("exists already"))
        #expect(exists.requests.isEmpty)  // Refused before asking.

        let sandboxed = try daemon(final: .failure(.permissionDenied, "utensild's sandbox lets it write only its own folders."))
        defer { sandboxed.stop() }
        let denied = try CtlProcess.run(["backup", "--socket", sandboxed.socketPath, sandboxed.folder.path + "/new"])
        #expect(denied.status == 77)
        #expect(denied.standardError == "utensilctl: utensild's sandbox lets it write only its own folders.\n")

        let cut = try daemon(thenClose: true)
        defer { cut.stop() }
        let lost = try CtlProcess.run(["backup", "--socket", cut.socketPath, cut.folder.path + "/new"])
        #expect(lost.status == 69)
        #expect(lost.standardError.contains("before the backup finished"))

        let usage = try CtlProcess.run(["backup"])
        #expect(usage.status == 64)
    }
}
