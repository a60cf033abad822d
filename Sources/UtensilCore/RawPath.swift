/// A file path as Linux stores it: bytes, not necessarily valid UTF-8.
///
/// Drops are named by people and their tools; a name that is not UTF-8 must still be opened,
/// moved and reported, so paths in the engine and the watcher are never forced through
/// `String`. The one byte-path type of the package.
public struct RawPath: Hashable, Sendable, CustomStringConvertible {
    public private(set) var bytes: [UInt8]

    /// `/`.
    public static let separator = UInt8(ascii: "/")

    public init(_ string: String) { bytes = Array(string.utf8) }
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// This path with one more component (`bytes` must hold no `/`).
    public func appending(_ component: [UInt8]) -> RawPath {
        var result = bytes
        if result.last != Self.separator { result.append(Self.separator) }
        result.append(contentsOf: component)
        return RawPath(bytes: result)
    }

    public func appending(_ component: String) -> RawPath { appending(Array(component.utf8)) }

    /// The last component's bytes (the file name).
    public var lastComponent: [UInt8] {
        guard let slash = bytes.lastIndex(of: Self.separator) else { return bytes }
        return Array(bytes[(slash + 1)...])
    }

    /// The folder holding this path.
    public var parent: RawPath {
        guard let slash = bytes.lastIndex(of: Self.separator) else { return RawPath(".") }
        return slash == 0 ? RawPath("/") : RawPath(bytes: Array(bytes[..<slash]))
    }

    /// The path relative to `base`, or the whole path when it is not below `base`.
    public func relative(to base: RawPath) -> [UInt8] {
        let prefix = base.bytes.last == Self.separator ? base.bytes : base.bytes + [Self.separator]
        guard bytes.starts(with: prefix) else { return bytes }
        return Array(bytes[prefix.count...])
    }

    /// The path without trailing slashes ("/" stays "/").
    public var normalized: RawPath {
        var path = bytes
        while path.count > 1, path.last == Self.separator { path.removeLast() }
        return RawPath(bytes: path)
    }

    /// Whether this path is `folder` itself or lies below it.
    public func isSelfOrDescendant(of folder: RawPath) -> Bool {
        let folder = folder.bytes
        guard bytes.count >= folder.count, bytes.starts(with: folder) else { return false }
        return bytes.count == folder.count || folder.last == Self.separator || bytes[folder.count] == Self.separator
    }

    /// Whether this path lies strictly below `folder`.
    public func isDescendant(of folder: RawPath) -> Bool {
        bytes.count > folder.bytes.count && isSelfOrDescendant(of: folder)
    }

    /// The folders holding this path, nearest first ("/a/b/c" → "/a/b", "/a", "/").
    public var ancestors: [RawPath] {
        var result: [RawPath] = []
        var current = normalized.bytes
        while let cut = current.lastIndex(of: Self.separator) {
            current = cut == 0 ? [Self.separator] : Array(current[..<cut])
            result.append(RawPath(bytes: current))
            if cut == 0 { break }
        }
        return result
    }

    /// For people: invalid UTF-8 is shown as U+FFFD.
    public var description: String { bytes.lossyString }

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
    /// Lossy text for people and JSON: invalid UTF-8 shown as U+FFFD.
    public var lossyString: String { String(decoding: self, as: UTF8.self) }
}
