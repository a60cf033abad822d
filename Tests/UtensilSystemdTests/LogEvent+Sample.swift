import Logging

extension LogEvent {
    /// An event as the ingest logs one (`Ingested` at info, from `UtensilIngest/Ingest.swift`
    /// line 42), with what a test changes.
    static func sample(
        _ message: Logger.Message = "Ingested", level: Logger.Level = .info, metadata: Logger.Metadata? = nil,
        error: (any Error)? = nil
    ) -> LogEvent {
        LogEvent(
            level: level, message: message, error: error, metadata: metadata, source: "UtensilIngest",
            file: "UtensilIngest/Ingest.swift", function: "ingest(_:)", line: 42)
    }
}
