/// Accepted ranges of the numeric keys, in one place so validation and help texts agree.
public enum Limits {
    static let workers = 0...256
    static let thumbnailSize = 16...4096
    static let thumbnailQuality = 1...100
    static let positive = 1...Int.max
    /// Below 16 MiB not even an ordinary photo could be decoded.
    static let memoryBudget = (16 << 20)...Int.max
    /// Beyond an hour a changing drop is rejected as `never-settled`, so a longer settle time makes no sense.
    static let settleSecondsMaximum = 3600.0
    static let rescanSecondsMaximum = 86_400.0
    /// Ten years: beyond that the trash is a second catalog.
    static let trashDaysMaximum = 3650.0
    static let socketModeMaximum: UInt32 = 0o777
    /// `sun_path` holds 108 bytes including the terminating NUL.
    static let socketPathBytes = 107
    /// A hook is an errand, not a job: an hour is already generous.
    public static let hookTimeoutSecondsMaximum = 3600.0
    /// Between SIGTERM and SIGKILL of a hook that overran its time.
    public static let hookStopGraceSeconds = 2.0
}
