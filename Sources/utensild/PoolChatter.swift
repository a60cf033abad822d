import Logging

/// The PostgreSQL pool's own log lines, at debug: postgres-nio logs every failed connection
/// attempt at info ("Connection creation failed", with the client's raw error), some 25 lines
/// a host in an outage of a minute, while the daemon says once that the catalog went away
/// and once that it is back, in a sentence. `log_level = "debug"` still shows them.
struct PoolChatter: LogHandler {
    private var underlying: Logger

    init(_ underlying: Logger) { self.underlying = underlying }

    var metadata: Logger.Metadata {
        get { underlying.handler.metadata }
        set { underlying.handler.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { underlying.logLevel }
        set { underlying.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { underlying[metadataKey: key] }
        set { underlying[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        // The logger checked the pool's level against ours; at debug, ours decides again.
        guard underlying.logLevel <= .debug else { return }
        var event = event
        event.level = .debug
        underlying.handler.log(event: event)
    }
}

extension Logger {
    /// This logger with every line at debug (``PoolChatter``).
    var demotedToDebug: Logger { Logger(label: label) { [self] _ in PoolChatter(self) } }
}
