import Foundation
import Testing
import UtensilConfig
import UtensilTestSupport

/// What the README and the guides say of the configuration names real things: every
/// `key = …` they show is a key, every `UTENSILD_…` variable is one a key reads, every
/// `utensild --flag` is a flag of utensild. (That every key is documented, with its
/// default, is ExampleFileTests' part: config/utensild.toml.)
@Suite struct DocumentedConfigurationTests {

    /// utensild's flags: one per key, and the command's own (`@Flag`/`@Option(name: .long)`
    /// in Sources/utensild, the property name in kebab case), with help and version.
    static let utensildFlags: Set<String> = {
        var flags = Set(ConfigKey.allCases.map(\.flagName)).union(["help", "version"])
        let folder = RepositoryDocuments.root.appendingPathComponent("Sources/utensild")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for file in files where file.hasSuffix(".swift") {
            let source = RepositoryDocuments.text("Sources/utensild/" + file)
            for name in RepositoryDocuments.matches(#"@(?:Flag|Option)\(name: \.long[^\n]*\n\s*var (\w+)"#, in: source) {
                flags.insert(name.replacing(/[A-Z]/) { "-" + $0.output.lowercased() })
            }
        }
        return flags
    }()

    @Test func utensildsOwnFlagsAreFound() {
        #expect(Self.utensildFlags.isSuperset(of: ["config", "check-config", "oneshot", "state-dir"]))
    }

    @Test func everyDocumentedKeyAssignmentIsAKey() {
        let keys = Set(ConfigKey.allCases.map(\.rawValue))
        for document in RepositoryDocuments.guides {
            let text = RepositoryDocuments.text(document)
            #expect(!text.isEmpty, "\(document) not found beside Package.swift")
            // Names with an underscore only: `ssl = off` is PostgreSQL's.
            for name in RepositoryDocuments.matches(#"`([a-z]+(?:_[a-z]+)+) = "#, in: text) {
                #expect(keys.contains(name), "\(document) shows `\(name) = …`, which is no configuration key (see ConfigKey): correct it")
            }
        }
    }

    @Test func everyDocumentedEnvironmentVariableIsRead() {
        let names = Set(ConfigKey.allCases.map(\.environmentName)).union(["UTENSILD_CONFIG"])
        for document in RepositoryDocuments.guides {
            for name in RepositoryDocuments.matches(#"\b(UTENSILD_[A-Z_]*[A-Z])\b"#, in: RepositoryDocuments.text(document)) {
                #expect(names.contains(name), "\(document) names \(name), which utensild does not read (see ConfigKey.environmentName): correct it")
            }
        }
    }

    @Test func everyDocumentedUtensildFlagExists() {
        for document in RepositoryDocuments.guides {
            let text = RepositoryDocuments.text(document)
            // `utensild --flag …` in backticks or at the start of a (code) line, `sudo -u USER` allowed.
            let runs = RepositoryDocuments.matches(#"(?:`|^)(?:sudo (?:-u \w+ )?)?(?:\S*/)?utensild((?: [^`\n#|]*)?)"#, in: text)
            for run in runs {
                for flag in RepositoryDocuments.matches(#"(?:^| )--([a-z][a-z-]*)"#, in: run) {
                    #expect(Self.utensildFlags.contains(flag), "\(document): `utensild\(run)` names --\(flag), which utensild has no flag for: correct it")
                }
            }
        }
    }
}
