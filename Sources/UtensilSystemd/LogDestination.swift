import Glibc
import Logging

/// Where the daemon's logs go: natively to journald, or as plain or JSON lines on stderr.
///
/// Every `environment` parameter defaults (`nil`) to this process's environment.
public enum LogDestination: Sendable, Equatable {
    /// journald's native protocol, through ``JournaldLogHandler``.
    case journal
    /// One line per entry on stderr, through ``PlainStderrLogHandler``.
    case standardError
    /// One JSON object per entry on stderr, through ``JSONLinesLogHandler``.
    case jsonLines

    /// journald's native socket.
    public static let journalSocketPath = "/run/systemd/journal/socket"

    /// ``journal`` when journald's native socket exists, ``standardError`` otherwise.
    ///
    /// The native protocol needs the socket (without it libsystemd drops entries silently), so
    /// a journal stream alone, say under `TemporaryFileSystem=/run`, gets plain lines, which
    /// journald still records from the stream, priority included.
    public static func detect(socketPath: String = journalSocketPath) -> LogDestination {
        FileProbe.isSocket(atPath: socketPath) ? .journal : .standardError
    }

    /// True when journald receives what the daemon logs: stderr is a journal stream
    /// (`JOURNAL_STREAM` names its device and inode, as systemd sets it for services) or
    /// journald's native socket exists.
    public static func journalIsAvailable(
        environment: [String: String]? = nil, socketPath: String = journalSocketPath
    ) -> Bool {
        stderrIsJournalStream(environment: environment) || FileProbe.isSocket(atPath: socketPath)
    }

    /// True when `JOURNAL_STREAM` is `<device>:<inode>` of this process's file descriptor 2.
    public static func stderrIsJournalStream(environment: [String: String]? = nil) -> Bool {
        let variable = "JOURNAL_STREAM"
        guard let value = environment.map({ $0[variable] }) ?? getenv(variable).map({ String(cString: $0) })
        else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
            let stderr = FileProbe.identity(ofDescriptor: STDERR_FILENO)
        else { return false }
        return stderr == (device, inode)
    }

    /// A `LoggingSystem.bootstrap` factory making this destination's handler for each label.
    /// Plain lines are ``PlainStderrLogHandler/Style/journalStream`` when stderr is a journal
    /// stream, ``PlainStderrLogHandler/Style/timestamped`` otherwise.
    public func handlerFactory(
        identifier: String = "utensild", logLevel: Logger.Level = .info, environment: [String: String]? = nil
    ) -> @Sendable (String) -> any LogHandler {
        switch self {
        case .journal:
            return { JournaldLogHandler(label: $0, identifier: identifier, logLevel: logLevel) }
        case .standardError:
            let style: PlainStderrLogHandler.Style =
                Self.stderrIsJournalStream(environment: environment) ? .journalStream : .timestamped
            return { PlainStderrLogHandler(label: $0, style: style, logLevel: logLevel) }
        case .jsonLines:
            return { JSONLinesLogHandler(label: $0, identifier: identifier, logLevel: logLevel) }
        }
    }

    /// The detected destination's factory:
    /// `LoggingSystem.bootstrap(LogDestination.bootstrapFactory(identifier: "utensild"))`.
    public static func bootstrapFactory(
        identifier: String = "utensild", logLevel: Logger.Level = .info, environment: [String: String]? = nil
    ) -> @Sendable (String) -> any LogHandler {
        detect().handlerFactory(identifier: identifier, logLevel: logLevel, environment: environment)
    }
}
