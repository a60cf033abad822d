import Logging

/// One journal entry as the `FIELD=value` pairs `sd_journal_sendv` sends.
struct JournalEntry: Equatable {
    struct Field: Equatable {
        var name: String
        var value: String
    }

    /// Fields the handler itself writes; a metadata key that would land on one of them is sent as
    /// `X_<NAME>` instead, so that metadata can never replace the message or its priority.
    static let handlerFields: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC",
    ]

    var fields: [Field]

    /// The entry for `event`: message, priority, identifier and code location first, then each
    /// metadata pair (flattened, see ``MetadataFlattening``) under its sanitised name.
    init(event: LogEvent, identifier: String, metadata: Logger.Metadata) {
        fields = [
            Field(name: "MESSAGE", value: event.message.description),
            Field(name: "PRIORITY", value: String(event.level.syslogPriority)),
            Field(name: "SYSLOG_IDENTIFIER", value: identifier),
            Field(name: "CODE_FILE", value: event.file),
            Field(name: "CODE_LINE", value: String(event.line)),
            Field(name: "CODE_FUNC", value: event.function),
        ]
        for pair in MetadataFlattening.pairs(metadata) {
            var name = JournalFieldName.sanitized(pair.key)
            if Self.handlerFields.contains(name) { name = "X_" + name }
            fields.append(Field(name: name, value: pair.value))
        }
    }
}
