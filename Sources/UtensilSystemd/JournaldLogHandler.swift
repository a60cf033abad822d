import Logging

/// A swift-log handler that writes each entry to journald with structured fields.
///
/// Fields: `MESSAGE` (line breaks kept), `PRIORITY` (syslog number), `SYSLOG_IDENTIFIER`,
/// `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, and one field per metadata key (handler, provider and
/// call metadata merged, the call's winning) under a valid journal name: `MESSAGE_ID`,
/// `UTENSIL_ID` … arrive as they are, `inbox-file.path` as `INBOX_FILE_PATH`, nested
/// dictionaries as one field per leaf. Should journald refuse the entry (its socket left behind
/// by a journald that stopped), it is written to stderr as a timestamped plain line instead.
/// (libsystemd drops entries silently when the socket does not exist at all: see
/// ``LogDestination/detect(socketPath:)``.)
public struct JournaldLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level
    /// `SYSLOG_IDENTIFIER` of every entry.
    public let identifier: String

    /// `label` is swift-log's name for the logger, accepted for `LoggingSystem.bootstrap` and not sent.
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
        let merged = event.effectiveMetadata(handler: metadata, provider: metadataProvider)
        do {
            try JournalEntry(event: event, identifier: identifier, metadata: merged).send()
        } catch {
            StandardError.writeLine(
                PlainStderrLogHandler.Style.timestamped.prefix(for: event.level)
                    + PlainLine.format(level: event.level, message: event.message.description, metadata: merged))
        }
    }
}
