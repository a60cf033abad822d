import Foundation
import Glibc

/// Counts the CPU cores available to this process.
enum CPUCount {
    /// Cores in the affinity mask (`Cpus_allowed` of /proc/self/status; systemd's `CPUAffinity=`
    /// and cpusets narrow it), else the online cores; at least 1.
    static func usable() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let count = allowedCount(inStatus: status), count > 0 {
            return count
        }
        return max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The number of set bits in the `Cpus_allowed:` hex mask (`ffffffff,00000003`).
    static func allowedCount(inStatus status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) where character != "," && !character.isWhitespace {
            guard let nibble = character.hexDigitValue else { return nil }
            count += nibble.nonzeroBitCount
        }
        return count
    }
}
