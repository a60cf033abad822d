import Glibc

#if DEBUG
/// Test-only hooks that inject faults which cannot be produced for real at an exact instant:
/// a `kill -9` between two steps of an ingest, and a decoder that crashes or hangs. Both are read from
/// the environment once, and are inert unless those variables are set.
///
/// Only debug builds (the ones tests run) have them. A release build (`swift build -c release`,
/// the installed binary) compiles the stand-in below instead: no environment variable is read,
/// no step has a name, nothing kills or crashes the process, and the C support library has no
/// crash-simulation code at all (the simulated crashes are raised from here).
public struct FaultInjection: Sendable {
    /// The steps of an ingest and of other store operations at which a `kill -9` can be injected.
    public enum Step: String, Sendable, CaseIterable {
        case opened = "opened"
        case originalWritten = "original-written"
        /// The thumbnail and the preview are written into `staging/`.
        case thumbnailWritten = "thumbnail-written"
        case filesDurable = "files-durable"
        case committed = "committed"
        case dropRemoved = "drop-removed"
        case sidecarWritten = "sidecar-written"
        case rejectionMoved = "rejection-moved"
        /// After the commit, the new preview and thumbnail are moved from `staging/` into
        /// place, then the new original.
        case thumbnailMoved = "thumbnail-moved"
        case originalMoved = "original-moved"
        /// Deleting a utensil for good (`delete --now`, a purge of the trash): its files are
        /// moved into `staging/`, its row's removal is committed, then each staged file is removed.
        case deleteFilesStaged = "delete-files-staged"
        case deleteCommitted = "delete-committed"
        case deleteFileRemoved = "delete-file-removed"
        /// A rename is committed.
        case renameCommitted = "rename-committed"
        /// `rethumb`: the new thumbnail and preview are durable in `staging/`, then renamed over
        /// the old ones.
        case rethumbStaged = "rethumb-staged"
        case rethumbMoved = "rethumb-moved"

        /// The steps of store operations other than an ingest.
        public static let notOfAnIngest: Set<Step> = [
            .deleteFilesStaged, .deleteCommitted, .deleteFileRemoved, .renameCommitted, .rethumbStaged, .rethumbMoved,
        ]
    }

    /// `UTENSIL_FAULT_KILL_AT=<step>`: the process kills itself with SIGKILL at that step.
    public var killAt: Step?
    /// `UTENSIL_FAULT_DECODER_CRASH=<text>`: decoding a drop whose name contains the text
    /// raises SIGSEGV inside the decoder guard.
    public var decoderCrashOn: String?
    /// `UTENSIL_FAULT_CODEC_THREAD_CRASH=<text>`: the same, but on a thread the decoder starts
    /// (as libde265 and dav1d do), not on the worker that is decoding.
    public var codecThreadCrashOn: String?
    /// `UTENSIL_FAULT_DECODER_HANG=<text>`: decoding a drop whose name contains the text never
    /// ends (as a decoder stuck in a huge image would), after printing `decoder hangs on NAME`
    /// to standard error, so that a test can kill the process mid-decode.
    public var decoderHangOn: String?

    public init(killAt: Step? = nil, decoderCrashOn: String? = nil, codecThreadCrashOn: String? = nil, decoderHangOn: String? = nil) {
        self.killAt = killAt
        self.decoderCrashOn = decoderCrashOn
        self.codecThreadCrashOn = codecThreadCrashOn
        self.decoderHangOn = decoderHangOn
    }

    public static func fromEnvironment() -> FaultInjection {
        FaultInjection(
            killAt: getenv("UTENSIL_FAULT_KILL_AT").flatMap { Step(rawValue: String(cString: $0)) },
            decoderCrashOn: getenv("UTENSIL_FAULT_DECODER_CRASH").map { String(cString: $0) },
            codecThreadCrashOn: getenv("UTENSIL_FAULT_CODEC_THREAD_CRASH").map { String(cString: $0) },
            decoderHangOn: getenv("UTENSIL_FAULT_DECODER_HANG").map { String(cString: $0) })
    }

    func reached(_ step: Step) {
        if killAt == step { kill(getpid(), SIGKILL) }
    }

    func decoding(_ name: String) {
        if let needle = decoderCrashOn, !needle.isEmpty, name.contains(needle) {
            raise(SIGSEGV)  // On the decoding thread, as a decoder bug would.
        }
        if let needle = codecThreadCrashOn, !needle.isEmpty, name.contains(needle) {
            Self.crashOnAThreadOfItsOwn()
        }
        if let needle = decoderHangOn, !needle.isEmpty, name.contains(needle) {
            let line = Array("decoder hangs on \(name)\n".utf8)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            while true { pause() }
        }
    }

    /// Raises SIGSEGV on a thread started for it (and waited for), as a bug in a codec's own
    /// worker thread would (libde265 and dav1d decode on threads of their own).
    private static func crashOnAThreadOfItsOwn() {
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { _ in
            raise(SIGSEGV)
            return nil
        }, nil) == 0 else { return }
        pthread_join(thread, nil)
    }
}
#else
/// Release builds have no fault hooks: this stand-in only lets the steps stay named at their
/// call sites. It reads no environment variable and every call compiles to nothing.
public struct FaultInjection: Sendable {
    /// The steps of a store operation (named in debug builds only).
    public enum Step: Sendable {
        case opened, originalWritten, thumbnailWritten, filesDurable, committed, dropRemoved, sidecarWritten
        case rejectionMoved, thumbnailMoved, originalMoved, deleteFilesStaged, deleteCommitted, deleteFileRemoved
        case renameCommitted, rethumbStaged, rethumbMoved
    }

    public init() {}

    public static func fromEnvironment() -> FaultInjection { FaultInjection() }

    @inline(__always) func reached(_ step: Step) {}

    @inline(__always) func decoding(_ name: String) {}
}
#endif
