import Glibc
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

#if DEBUG
/// Test-only hooks that inject faults which cannot be produced for real at an exact instant:
/// a `kill -9` between two steps of an ingest, and a decoder that crashes or hangs; and one
/// that stretches a drop's retry back-off, so that what wakes a waiting drop early is told
/// apart from its back-off running out. All are read from the environment once, and are
/// inert unless those variables are set.
///
/// Only debug builds (the ones tests run) have them. A release build (`swift build -c release`,
/// the installed binary) compiles the stand-in below instead: no environment variable is read,
/// no step has a name, nothing kills or crashes the process, and the C support library has no
/// crash-simulation code at all (the simulated crashes are raised from here).
public struct FaultInjection: Sendable {
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
    /// `UTENSIL_FAULT_SYNC_FAILS_IN=<folder name>`: making a folder of that name durable
    /// (`fsync`) where the store goes through ``sync(_:)`` fails with EIO, as a failing disk's would.
    public var syncFailsIn: String?
    /// `UTENSIL_FAULT_COMMIT_REPLY_LOST=<text>`: the commit of a new utensil whose name contains
    /// the text happens, and then the catalog's answer is lost, as when a PostgreSQL connection
    /// is cut between the commit and its reply (the call fails as "unavailable").
    public var commitReplyLostFor: String?
    /// In-process only: the look-up that follows such a lost reply fails too (the catalog is
    /// gone for a while), so the commit's outcome stays unknown until a later look.
    public var lookupAfterLostReplyFails = false
    /// In-process only: whether the publish of a committed utensil's renditions (given its
    /// name) fails now, as when a bucket's server stops answering between a commit and its
    /// publish, an instant no test can stop it at for real.
    public var publishFails: (@Sendable (String) -> Bool)?
    /// `UTENSIL_FAULT_RETRY_AFTER=<seconds>`: every drop left for a retry waits this long
    /// instead of its back-off (5 s, 10 s …), so that a test can tell a drop retried because
    /// the catalog answers again from one whose back-off ran out.
    public var retryAfter: Duration?

    public init(
        killAt: Step? = nil, decoderCrashOn: String? = nil, codecThreadCrashOn: String? = nil, decoderHangOn: String? = nil,
        syncFailsIn: String? = nil, commitReplyLostFor: String? = nil, retryAfter: Duration? = nil
    ) {
        self.commitReplyLostFor = commitReplyLostFor
        self.killAt = killAt
        self.decoderCrashOn = decoderCrashOn
        self.codecThreadCrashOn = codecThreadCrashOn
        self.decoderHangOn = decoderHangOn
        self.syncFailsIn = syncFailsIn
        self.retryAfter = retryAfter
    }

    public static func fromEnvironment() -> FaultInjection {
        FaultInjection(
            killAt: getenv("UTENSIL_FAULT_KILL_AT").flatMap { Step(rawValue: String(cString: $0)) },
            decoderCrashOn: getenv("UTENSIL_FAULT_DECODER_CRASH").map { String(cString: $0) },
            codecThreadCrashOn: getenv("UTENSIL_FAULT_CODEC_THREAD_CRASH").map { String(cString: $0) },
            decoderHangOn: getenv("UTENSIL_FAULT_DECODER_HANG").map { String(cString: $0) },
            syncFailsIn: getenv("UTENSIL_FAULT_SYNC_FAILS_IN").map { String(cString: $0) },
            commitReplyLostFor: getenv("UTENSIL_FAULT_COMMIT_REPLY_LOST").map { String(cString: $0) },
            retryAfter: getenv("UTENSIL_FAULT_RETRY_AFTER").flatMap { Int(String(cString: $0)) }.map { .seconds($0) })
    }

    /// The first look-up after a lost reply, failing as ``lookupAfterLostReplyFails`` asks.
    func lookingUpAfterLostReply() throws(CatalogError) {
        if lookupAfterLostReplyFails {
            throw .unavailable(code: -1, detail: "the catalog cannot be reached (fault injection)")
        }
    }

    /// Before the publish of committed utensil `name`'s renditions: fails as an unreachable
    /// storage would, as ``publishFails`` asks.
    func publishing(_ name: String) throws(StorageError) {
        if let publishFails, publishFails(name) {
            throw .objectStorage(ObjectStorageFailure(
                kind: .unreachable, isTransient: true, message: "The storage does not answer (fault injection)."))
        }
    }

    /// After a commit of `names` that happened: fails as a lost reply would, as
    /// ``commitReplyLostFor`` asks.
    func committed(_ names: [String]) throws(CatalogError) {
        if let needle = commitReplyLostFor, !needle.isEmpty, names.contains(where: { $0.contains(needle) }) {
            throw .unavailable(code: -1, detail: "the connection was lost before the commit's reply (fault injection)")
        }
    }

    /// Makes `folder` durable, or fails as ``syncFailsIn`` asks.
    func sync(_ folder: HeldFolder) throws(SystemError) {
        if let name = syncFailsIn, folder.path.lastComponent == Array(name.utf8) {
            throw SystemError("fsync", folder.path, code: EIO)
        }
        try folder.sync()
    }

    package func reached(_ step: Step) {
        if killAt == step { kill(getpid(), SIGKILL) }
    }

    package func decoding(_ name: String) {
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
    public init() {}

    public static func fromEnvironment() -> FaultInjection { FaultInjection() }

    /// Release builds keep every drop's own back-off.
    public var retryAfter: Duration? { nil }

    @inline(__always) package func reached(_ step: Step) {}

    @inline(__always) package func decoding(_ name: String) {}

    @inline(__always) func sync(_ folder: HeldFolder) throws(SystemError) { try folder.sync() }

    @inline(__always) func committed(_ names: [String]) throws(CatalogError) {}

    @inline(__always) func lookingUpAfterLostReply() throws(CatalogError) {}

    @inline(__always) func publishing(_ name: String) throws(StorageError) {}
}
#endif

extension FaultInjection {
    /// The steps of an ingest and of other store operations at which a `kill -9` can be injected.
    ///
    /// A step's name (`UTENSIL_FAULT_KILL_AT`'s value) is its case's in lower case with hyphens:
    /// `originalWritten` is `original-written`. Release builds name no step.
    public enum Step: Sendable, CaseIterable {
        case opened
        case originalWritten
        /// The thumbnail and the preview are written into `staging/`.
        case thumbnailWritten
        case filesDurable
        case committed
        case dropRemoved
        case sidecarWritten
        case rejectionMoved
        /// After the commit, the new preview and thumbnail are moved from `staging/` into
        /// place, then the new original.
        case thumbnailMoved
        case originalMoved
        /// Deleting a utensil for good (`delete --now`, a purge of the trash): its files are
        /// moved into `staging/`, its row's removal is committed, then each staged file is removed.
        case deleteFilesStaged
        case deleteCommitted
        case deleteFileRemoved
        /// A rename is committed.
        case renameCommitted
        /// `rethumb`: the new thumbnail and preview are durable in `staging/`, then renamed over
        /// the old ones.
        case rethumbStaged
        case rethumbMoved

        #if DEBUG
        /// The name `UTENSIL_FAULT_KILL_AT` gives the step by.
        public var rawValue: String { CaseSpelling.kebab(self) }

        /// The step of that name, nil for none.
        public init?(rawValue: String) {
            guard let step = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = step
        }
        #endif

        /// The steps of store operations other than an ingest.
        public static let notOfAnIngest: Set<Step> = [
            .deleteFilesStaged, .deleteCommitted, .deleteFileRemoved, .renameCommitted, .rethumbStaged, .rethumbMoved,
        ]
    }
}
