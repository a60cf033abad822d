import Foundation

/// Holds SQLite's write lock on a database from another process (the sqlite3 CLI).
public final class SQLiteLock {
    public let process = Process()
    public let input = Pipe()
    private var released = false

    public init(path: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-bail", path]  // A failed BEGIN ends it: no "locked" without the lock.
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Wait (up to 10 s) for a writer in progress rather than fail at once and hold nothing.
        input.fileHandleForWriting.write(Data(".timeout 10000\nBEGIN EXCLUSIVE;\nSELECT 'locked';\n".utf8))
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.contains("locked") else { throw TestFailure("sqlite3 did not take the lock: \(line)") }
    }

    public func release() {
        guard !released else { return }
        released = true
        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        process.waitUntilExit()
    }
}

/// PNG bytes made by hand, for headers no encoder would write.
public enum PNGBytes {
    public static func headerOnly(width: Int, height: Int) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var ihdr = Data("IHDR".utf8)
        for value in [UInt32(width), UInt32(height)] { withUnsafeBytes(of: value.bigEndian) { ihdr.append(contentsOf: $0) } }
        ihdr.append(contentsOf: [8, 2, 0, 0, 0])
        withUnsafeBytes(of: UInt32(13).bigEndian) { data.append(contentsOf: $0) }
        data.append(ihdr)
        withUnsafeBytes(of: crc32(ihdr).bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    public static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }
}

/// A small, seedable generator (SplitMix64) so that random kills are reproducible.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
