import Foundation
import Testing
@testable import UtensilConfig

/// `config/utensild.toml` of the repository, found from this source file.
private let examplePath = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("config/utensild.toml").path

@Suite struct ExampleFileTests {
    @Test func theExampleLoadsAsTheDefaults() throws {
        #expect(try ConfigurationLoader.load(file: examplePath, environment: [:], flags: [:]) == .defaults)
    }

    /// Every key is documented as a commented-out "#key = default" line, and those defaults are the real ones.
    @Test func uncommentingEveryKeyStillGivesTheDefaults() throws {
        let text = try String(contentsOfFile: examplePath, encoding: .utf8)
        var keys: [String] = []
        var uncommented = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#"), let first = line.dropFirst().first, first.isLetter {
                keys.append(String(line.dropFirst().prefix(while: { $0 != " " })))
                uncommented += line.dropFirst() + "\n"
            } else {
                uncommented += line + "\n"
            }
        }
        #expect(keys == ConfigKey.allCases.map(\.rawValue))
        let folder = try TemporaryFolder()
        #expect(try load(toml: uncommented, in: folder) == .defaults)
    }
}
