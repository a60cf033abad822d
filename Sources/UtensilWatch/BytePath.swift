import Glibc

/// Helpers for paths kept as bytes, never forced through `String`.
enum BytePath {
    static let slash = UInt8(ascii: "/")

    /// `folder/name`.
    static func join(_ folder: [UInt8], _ name: [UInt8]) -> [UInt8] {
        var path = folder
        if path.last != slash { path.append(slash) }
        path.append(contentsOf: name)
        return path
    }

    /// The path without trailing slashes ("/" stays "/").
    static func normalized(_ path: [UInt8]) -> [UInt8] {
        var path = path
        while path.count > 1, path.last == slash { path.removeLast() }
        return path
    }

    /// Whether `path` is `folder` itself or lies below it.
    static func isSelfOrDescendant(_ path: [UInt8], of folder: [UInt8]) -> Bool {
        guard path.count >= folder.count, path.starts(with: folder) else { return false }
        return path.count == folder.count || folder.last == slash || path[folder.count] == slash
    }

    /// Whether `path` lies strictly below `folder`.
    static func isDescendant(_ path: [UInt8], of folder: [UInt8]) -> Bool {
        path.count > folder.count && isSelfOrDescendant(path, of: folder)
    }

    /// The parent folders of `path`, nearest first ("/a/b/c" → "/a/b", "/a", "/").
    static func ancestors(of path: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var current = normalized(path)
        while let cut = current.lastIndex(of: slash) {
            current = cut == 0 ? [slash] : Array(current[..<cut])
            result.append(current)
            if cut == 0 { break }
        }
        return result
    }

    /// Calls `body` with a NUL-terminated copy of `path`.
    static func withCString<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        var bytes = path
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }

    /// A readable rendering for messages (invalid UTF-8 shown as U+FFFD).
    static func display(_ path: [UInt8]) -> String {
        String(decoding: path, as: UTF8.self)
    }

    /// `strerror` as a Swift string.
    static func describe(errno code: Int32) -> String {
        String(cString: strerror(code))
    }
}
