import Foundation
import Glibc
import Testing
import UtensilTestSupport

extension JournaldEndToEndTests {
    /// A failing ingest hook is one journal entry with its MESSAGE_ID, its fields and its
    /// output (line breaks kept), at warning priority.
    @Test func aFailingHookIsOneJournalEntryWithItsOutput() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let hook = world.root.appendingPathComponent("failing-hook-\(UUID().uuidString.prefix(8))").path
        try "#!/bin/sh\necho 'line one'\necho 'line two' >&2\nexit 3\n".write(toFile: hook, atomically: false, encoding: .utf8)
        chmod(hook, 0o755)
        try await Journald.whileRunning {
            let daemon = try RunningDaemon(
                world: world, extra: ["--on-reject", hook], environment: ["SYSTEMD_LOG_TARGET": "journal"])
            try world.drop("Hooked junk.jpg", Data("not a photo".utf8))
            let entry = try await Self.entry(matching: "HOOK_PROGRAM=\(hook)")
            #expect(entry["MESSAGE_ID"] == ["5c0b1f6e8a7d4e3f9b2c4d6a8e0f1a37"])
            #expect(entry["HOOK"] == ["on_reject"])
            #expect(entry["HOOK_END"] == ["exit 3"])
            #expect(entry["HOOK_OUTPUT"] == ["line one\nline two\n"])
            #expect(entry["HOOK_OUTPUT_BYTES"] == ["18"])
            #expect(entry["INBOX_FILE"] == ["Hooked junk.jpg"])
            #expect(entry["REJECT_REASON"] == ["corrupt-image"])
            #expect(entry["PRIORITY"] == ["4"])
            #expect(try daemon.terminate() == 0)
        }
    }
}
