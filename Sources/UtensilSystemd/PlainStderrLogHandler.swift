import Logging

/// A swift-log handler for when journald's native socket is absent: one line per entry on
/// stderr, `<level> <message> key=value …` (line breaks escaped), after a prefix that suits
/// where stderr goes (see ``Style``).
public struct PlainStderrLogHandler: LogHandler {
    /// What each line starts with.
    public enum Style: Sendable, Equatable {
        /// The time it was logged, ISO 8601 UTC with milliseconds: for terminals and files.
        case timestamped
        /// The syslog priority as `<N>`, which journald reading stderr as a journal stream turns
        /// into the entry's `PRIORITY` (it stamps the time itself).
        case journalStream

        func prefix(for level: Logger.Level) -> String {
            switch self {
            case .timestamped: WallClock.iso8601Now() + " "
            case .journalStream: "<\(level.syslogPriority)>"
            }
        }
    }

    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level
    public let style: Style

    /// `label` is swift-log's name for the logger, accepted for `LoggingSystem.bootstrap` and not written.
    public init(
        label: String, style: Style = .timestamped, logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.style = style
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        StandardError.writeLine(line(for: event))
    }

    /// The line `log(event:)` writes.
    func line(for event: LogEvent) -> String {
        style.prefix(for: event.level)
            + PlainLine.format(
                level: event.level, message: event.message.description,
                metadata: event.effectiveMetadata(handler: metadata, provider: metadataProvider))
    }
}
