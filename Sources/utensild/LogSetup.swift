import Foundation
import Logging
import UtensilConfig
import UtensilSystemd

enum LogSetup {
    /// Journald's native protocol when its socket is there, else plain stderr lines (prefixed
    /// with `<N>` priorities when stderr is a journal stream). `SYSTEMD_LOG_TARGET=console` or
    /// `=journal` forces one, as for systemd's own tools.
    static func makeLogger(level: LogLevelName) -> Logger {
        let swiftLevel = Logger.Level(rawValue: level.rawValue) ?? .info
        let destination: LogDestination = switch ProcessInfo.processInfo.environment["SYSTEMD_LOG_TARGET"] {
        case "console": .standardError
        case "journal": .journal
        default: .detect()
        }
        LoggingSystem.bootstrap(destination.handlerFactory(identifier: "utensild", logLevel: swiftLevel))
        var logger = Logger(label: "utensild")
        logger.logLevel = swiftLevel
        return logger
    }
}
