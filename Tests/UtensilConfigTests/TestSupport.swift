import Foundation
import Glibc
@testable import UtensilConfig

/// A fresh folder under /tmp, removed with its content when the value goes away.
final class TemporaryFolder {
    let path: String

    init() throws {
        var template = Array("/tmp/utensil-config-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `path/name` and returns that path.
    @discardableResult
    func write(_ text: String, to name: String = "utensild.toml") throws -> String {
        try text.write(toFile: file(name), atomically: false, encoding: .utf8)
        return file(name)
    }
}

/// Loads with `toml` (when given) as the named file and a default file that does not exist,
/// so nothing on the machine (such as /etc/utensild) can change the outcome.
func load(
    toml: String? = nil, environment: [String: String] = [:], flags: [ConfigKey: String] = [:], in folder: TemporaryFolder
) throws -> UtensilConfiguration {
    let file = try toml.map { try folder.write($0) }
    return try ConfigurationLoader.load(
        file: file, defaultFile: folder.file("absent-default.toml"), environment: environment, flags: flags)
}

/// The error `load` throws, or nil when it succeeds.
func loadError(
    toml: String? = nil, environment: [String: String] = [:], flags: [ConfigKey: String] = [:], in folder: TemporaryFolder
) throws -> ConfigurationError? {
    let file = try toml.map { try folder.write($0) }
    do {
        _ = try ConfigurationLoader.load(
            file: file, defaultFile: folder.file("absent-default.toml"), environment: environment, flags: flags)
        return nil
    } catch {
        return error
    }
}
