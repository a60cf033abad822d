import Foundation
import Logging
import UtensilConfig
import UtensilSystemd

enum LogSetup {
    /// Where `format` sends the log. `auto`: journald's native protocol when its socket is
    /// there, else plain stderr lines (prefixed with `<N>` priorities when stderr is a journal
    /// stream); `SYSTEMD_LOG_TARGET=console` or `=journal` forces one, as for systemd's own
    /// tools. `plain` and `json` are lines on stderr whatever is there.
    static func destination(for format: LogFormat, environment: [String: String]) -> LogDestination {
        switch format {
        case .plain: .standardError
        case .json: .jsonLines
        case .auto:
            switch environment["SYSTEMD_LOG_TARGET"] {
            case "console": .standardError
            case "journal": .journal
            default: .detect()
            }
        }
    }

    static func makeLogger(level: LogLevelName, format: LogFormat) -> Logger {
        let swiftLevel = Logger.Level(rawValue: level.rawValue) ?? .info
        let destination = destination(for: format, environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap(destination.handlerFactory(identifier: "utensild", logLevel: swiftLevel))
        var logger = Logger(label: "utensild")
        logger.logLevel = swiftLevel
        return logger
    }
}
