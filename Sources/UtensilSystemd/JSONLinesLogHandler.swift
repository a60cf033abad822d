import Logging

/// A swift-log handler for hosts without journald that want structured logs (`log_format =
/// "json"`): one JSON object a line on stderr, journald's field names as keys plus `TIMESTAMP`
/// (see ``JSONLine``), each line written whole with one `write`.
public struct JSONLinesLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level
    /// `SYSLOG_IDENTIFIER` of every entry.
    public let identifier: String

    /// `label` is swift-log's name for the logger, accepted for `LoggingSystem.bootstrap` and not written.
    public init(
        label: String, identifier: String = "utensild", logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
    ) {
        self.identifier = identifier
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

    /// The line `log(event:)` writes, stamped `timestamp`.
    func line(for event: LogEvent, timestamp: String = WallClock.iso8601Now()) -> String {
        JSONLine.format(
            event: event, identifier: identifier,
            metadata: event.effectiveMetadata(handler: metadata, provider: metadataProvider), timestamp: timestamp)
    }
}
