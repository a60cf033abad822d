import Testing
@testable import UtensilConfig

/// `log_format`: `auto` by default, `plain` or `json` from the file, `UTENSILD_LOG_FORMAT` or
/// `--log-format` (each beating the one before), anything else a one-line error naming the key.
@Suite struct LogFormatConfigTests {
    @Test func defaultsToAuto() throws {
        let folder = try TemporaryFolder()
        #expect(try load(in: folder).logFormat == .auto)
        #expect(UtensilConfiguration.defaults.renderTOML().contains("\nlog_format = \"auto\"\n"))
    }

    @Test func fileEnvironmentAndFlagEachBeatTheOneBefore() throws {
        let folder = try TemporaryFolder()
        let toml = "log_format = \"json\"\n"
        #expect(try load(toml: toml, in: folder).logFormat == .json)
        #expect(try load(toml: toml, environment: ["UTENSILD_LOG_FORMAT": "plain"], in: folder).logFormat == .plain)
        let all = try load(toml: toml, environment: ["UTENSILD_LOG_FORMAT": "plain"], flags: [.logFormat: "auto"], in: folder)
        #expect(all.logFormat == .auto)
        #expect(try load(flags: [.logFormat: "json"], in: folder).renderedValue(of: .logFormat) == "\"json\"")
        #expect(ConfigKey(flagName: "--log-format") == .logFormat)
        #expect(ConfigKey(environmentName: "UTENSILD_LOG_FORMAT") == .logFormat)
    }

    @Test func anUnknownFormatIsOneLineNamingTheKeyAndTheChoices() throws {
        let folder = try TemporaryFolder()
        for error in [
            try loadError(toml: "log_format = \"yaml\"", in: folder),
            try loadError(environment: ["UTENSILD_LOG_FORMAT": "JSON"], in: folder),
            try loadError(flags: [.logFormat: ""], in: folder),
        ] {
            let error = try #require(error)
            #expect(error.key == .logFormat)
            #expect(error.description.hasPrefix("log_format = "), "\(error)")
            #expect(error.description.contains(#""auto", "plain", "json""#), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    /// The log is set up once, at start.
    @Test func needsARestart() {
        #expect(!ConfigKey.logFormat.isReloadable)
        #expect(ConfigKey.logFormat.valueName == "auto|plain|json")
    }
}
