import Glibc

/// `CLOCK_MONOTONIC`, the clock systemd's `MONOTONIC_USEC=` is read against.
enum MonotonicClock {
    static func nowMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
