import Foundation

/// A fresh folder under /tmp (short, since a socket path must fit in 108 bytes), removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/utensil-systemd-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        path = String(cString: created)
    }

    func appending(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
