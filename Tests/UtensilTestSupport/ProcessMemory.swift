import Foundation

/// A process's memory from `/proc/PID/status`: resident now (`VmRSS`) and its peak (`VmHWM`).
public struct ProcessMemory: Sendable, CustomStringConvertible {
    public var residentKiB: Int
    public var peakResidentKiB: Int

    public var residentMiB: Double { Double(residentKiB) / 1024 }
    public var peakResidentMiB: Double { Double(peakResidentKiB) / 1024 }

    public static func of(_ pid: Int32) throws -> ProcessMemory {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kib(_ field: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        guard let rss = kib("VmRSS"), let hwm = kib("VmHWM") else {
            throw TestFailure("no VmRSS/VmHWM in /proc/\(pid)/status")
        }
        return ProcessMemory(residentKiB: rss, peakResidentKiB: hwm)
    }

    public var description: String {
        String(format: "VmRSS %.1f MiB, VmHWM %.1f MiB", residentMiB, peakResidentMiB)
    }
}
