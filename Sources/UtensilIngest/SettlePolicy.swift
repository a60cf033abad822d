import Foundation
import UtensilCore
import UtensilStorage
import UtensilStore

/// A drop is taken only once its size and modification time have been unchanged for
/// `settle_seconds`; one that is still changing after an hour is `never-settled`. (The daemon
/// also waits for a writer it saw to close the file: `DropScheduler`.) The one home of that
/// rule: `--oneshot` blocks on it, the daemon's scheduler asks it when to look again.
public struct SettlePolicy: Sendable {
    public var settleSeconds: Double
    /// How long a drop may keep changing, or stay open in its writer, before it is `never-settled`.
    public var giveUpAfterSeconds: Double

    public init(settleSeconds: Double, giveUpAfterSeconds: Double = 3600) {
        self.settleSeconds = settleSeconds
        self.giveUpAfterSeconds = giveUpAfterSeconds
    }

    /// The rejection of a drop that kept changing for longer than `giveUpAfterSeconds`.
    public static let neverSettled = Rejection(
        .neverSettled,
        "The file kept changing, or stayed open in the program writing it, for over an hour; finish copying it elsewhere and then move it into the inbox in one step.")

    public enum Verdict: Sendable {
        case settled(Drop)
        case vanished
        case neverSettled
    }

    /// Whether `drop` has been quiet long enough, judged by its modification time.
    public func isSettled(_ status: FileStatus, now: Date = Date()) -> Bool {
        secondsUntilSettled(status, now: now) == 0
    }

    /// How much longer a file with this status must stay unchanged to have settled (0 once it has).
    public func secondsUntilSettled(_ status: FileStatus, now: Date = Date()) -> Double {
        let modified = Double(status.modificationNanoseconds) / 1e9
        return max(0, settleSeconds - (now.timeIntervalSince1970 - modified))
    }

    /// Blocks the calling thread until the drop has settled (for `--oneshot`; the daemon
    /// schedules re-checks instead of blocking). `statusOf` says what the drop is now (the
    /// scanner resolves it beneath the inbox).
    public func waitUntilSettled(
        _ drop: Drop, statusOf: (Drop) throws -> FileStatus = { try InboxScanner.status(of: $0.path) }
    ) -> Verdict {
        let deadline = Date().addingTimeInterval(giveUpAfterSeconds)
        var current = drop
        while true {
            guard let status = try? statusOf(drop) else { return .vanished }
            current.status = status
            if status.kind != .regular || isSettled(status) { return .settled(current) }
            if Date() > deadline { return .neverSettled }
            let remaining = max(0.05, secondsUntilSettled(status))
            Thread.sleep(forTimeInterval: min(remaining, 1))
        }
    }
}
