/// A file path as Linux stores it: bytes, not necessarily valid UTF-8.
///
/// Drops are named by people and their tools; a name that is not UTF-8 must still be opened,
/// moved and reported, so paths in the engine are never forced through `String`.
public struct RawPath: Hashable, Sendable, CustomStringConvertible {
    public private(set) var bytes: [UInt8]

    public init(_ string: String) { bytes = Array(string.utf8) }
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// This path with one more component (`bytes` must hold no `/`).
    public func appending(_ component: [UInt8]) -> RawPath {
        var result = bytes
        if result.last != UInt8(ascii: "/") { result.append(UInt8(ascii: "/")) }
        result.append(contentsOf: component)
        return RawPath(bytes: result)
    }

    public func appending(_ component: String) -> RawPath { appending(Array(component.utf8)) }

    /// The last component's bytes (the file name).
    public var lastComponent: [UInt8] {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return bytes }
        return Array(bytes[(slash + 1)...])
    }

    /// The folder holding this path.
    public var parent: RawPath {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return RawPath(".") }
        return slash == 0 ? RawPath("/") : RawPath(bytes: Array(bytes[..<slash]))
    }

    /// The path relative to `base`, or the whole path when it is not below `base`.
    public func relative(to base: RawPath) -> [UInt8] {
        let prefix = base.bytes.last == UInt8(ascii: "/") ? base.bytes : base.bytes + [UInt8(ascii: "/")]
        guard bytes.starts(with: prefix) else { return bytes }
        return Array(bytes[prefix.count...])
    }

    /// For people: invalid UTF-8 is shown as U+FFFD.
    public var description: String { String(decoding: bytes, as: UTF8.self) }

    /// Calls `body` with a NUL-terminated copy of the path.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var terminated = bytes
        terminated.append(0)
        return try terminated.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }
}

extension Collection where Element == UInt8 {
    /// Lossy text for people and JSON.
    var lossyString: String { String(decoding: self, as: UTF8.self) }
}
