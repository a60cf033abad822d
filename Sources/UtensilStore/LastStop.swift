import Glibc
import UtensilCore
import UtensilStorage

/// How the previous run of the daemon ended, as systemd said: the unit's `ExecStopPost=` runs
/// `utensild --record-stop`, which stores `$SERVICE_RESULT` (`success`, `signal`, `oom-kill`,
/// `watchdog`, `timeout`, …) in `state_dir/last-stop` (`last-stop-<host_name>` when hosts share the
/// state folder, see ``HostFileNames``); the next start reads it and removes it.
///
/// It decides what a decode interrupted by a death that no signal handler saw means (see
/// ``DecoderCrashGuard``): after the OOM killer, the watchdog or a stop that timed out, the drop
/// being decoded is the likely cause and is counted as a decoder crash; after an operator's
/// `kill -9`, a power cut or no word at all (not under systemd), it is simply decoded again.
public struct LastStop: Sendable, Equatable {
    /// The results that blame the drops being decoded at the time.
    static let blamingResults: Set<String> = ["oom-kill", "watchdog", "timeout"]

    /// systemd's `$SERVICE_RESULT` for the run.
    public let serviceResult: String

    public init(serviceResult: String) {
        self.serviceResult = serviceResult
    }

    /// Whether a decode that was under way when the run ended is counted as a decoder crash.
    public var blamesInterruptedDecodes: Bool { Self.blamingResults.contains(serviceResult) }

    /// Stores this result in `stateDirectory` (durably, as `files.lastStop`), replacing an earlier one.
    public func record(in stateDirectory: RawPath, as files: HostFileNames) throws(SystemError) {
        let folder = try HeldFolder.open(stateDirectory)
        let word = String(serviceResult.filter { $0.isASCII && ($0.isLetter || $0 == "-") }.prefix(32))
        // The temporary's rename replaces an earlier result in one step.
        try FileOps.writeThroughTemporary(Array((word + "\n").utf8), in: folder, as: Array(files.lastStop.utf8), durable: true)
        try folder.sync()
    }

    /// The result stored by the previous run, or nil when none was (not under systemd, or the
    /// machine lost power). Only a missing file is absence: any other failure is thrown.
    static func read(in folder: HeldFolder, as files: HostFileNames) throws(SystemError) -> LastStop? {
        let bytes: [UInt8]?
        do throws(SystemError) {
            bytes = try FileOps.readRegularFile(Array(files.lastStop.utf8), in: folder, limit: 256)
        } catch where error.isNotFound {
            return nil
        }
        guard let bytes else { return nil }
        return LastStop(serviceResult: String(String(decoding: bytes, as: UTF8.self).filter { !$0.isNewline }))
    }

    /// Removes the stored result once start-up has acted on it.
    static func clear(in folder: HeldFolder, as files: HostFileNames) throws(SystemError) {
        try folder.unlinkIfPresent(Array(files.lastStop.utf8))
    }
}
