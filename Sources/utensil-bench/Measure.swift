import Foundation
import Glibc

/// Clocks and summaries shared by the measurements.
enum Measure {
    /// CPU time of the calling thread, in milliseconds.
    static func threadCPUms() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }

    /// CPU time of the whole process (user + system, every thread), in milliseconds.
    static func processCPUms() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }

    /// Monotonic wall time, in milliseconds.
    static func wallms() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 50) }

    /// Nearest-rank percentile (p in 0...100).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }

    static func rounded(_ value: Double, _ places: Int = 2) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}

/// Reads every file given (sorted, skipping names that start with a dot) into memory.
func readFiles(_ paths: [String]) throws -> [(name: String, bytes: [UInt8])] {
    var files: [(String, [UInt8])] = []
    for path in paths {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
            for name in names {
                files.append((name, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))))
            }
        } else {
            files.append(((path as NSString).lastPathComponent, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        }
    }
    return files
}

/// Prints one JSON document on standard output.
func printJSON(_ object: Any) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
