import Logging
import UtensilConfig

enum LogSetup {
    /// Plain lines on stderr (journald output comes with the daemon).
    static func makeLogger(level: LogLevelName) -> Logger {
        var logger = Logger(label: "utensild") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = Logger.Level(rawValue: level.rawValue) ?? .info
        return logger
    }
}
