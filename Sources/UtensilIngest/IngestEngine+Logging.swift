import Foundation
import Logging
import UtensilCore
import UtensilStore

extension IngestEngine {
    /// One log entry per drop, with the journal fields of the contract as metadata.
    func log(_ outcome: IngestOutcome, drop: Drop, duration: Duration) {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        var metadata: Logger.Metadata = .journal([
            .inboxFile: .string(drop.inboxPath.lossyString), .durationMS: .stringConvertible(milliseconds),
        ])
        switch outcome {
        case .ingested(let record), .alreadyIngested(let record):
            for cause in WaitCause.allCases { answered(cause, triedAt: Date() - duration.timeInterval) }
            metadata[.messageID] = .id(.ingested)
            metadata[.utensilID] = .string(record.id.uuidString)
            metadata[.utensilName] = .string(record.name)
            if let category = record.category { metadata[.utensilCategory] = .string(category) }
            if let addedBy = record.addedBy { metadata[.utensilAddedBy] = .string(addedBy) }
            let how = if case .alreadyIngested = outcome { " (its commit had happened before an interruption)" } else { "" }
            if record.updatedAt != nil, case .ingested = outcome {
                // Only a replacement's row has `updatedAt` when it comes from an ingest.
                logger.info("Replaced the photo of utensil \(record.name) with \(drop)", metadata: metadata)
            } else {
                let resembling = record.nearDuplicate.map { " (it looks like a copy of \($0.name), \($0.distance) bits apart)" } ?? ""
                logger.info("Ingested \(drop) as \(record.name)\(how)\(resembling)", metadata: metadata)
            }
        case .rejected(let rejection, let rejectedAs):
            let isCrash = rejection.reason == .decoderCrash
            metadata[.messageID] = .id(isCrash ? .decoderCrash : .rejected)
            metadata[.rejectReason] = .string(rejection.reason.rawValue)
            metadata[.rejectedAs] = .string(rejectedAs)
            logger.notice("Rejected \(drop) (\(rejection.reason.rawValue)): \(rejection.message)", metadata: metadata)
        case .retryLater(let failure):
            metadata[.messageID] = .id(.retryLater)
            metadata[.retryReason] = .string(failure.kind.rawValue)
            if failure.kind == .takenByAnotherHost {
                // Not a fault: the host that holds the drop logs what becomes of it.
                logger.debug("Left \(drop) to another host: \(failure.message)", metadata: metadata)
            } else if let cause = WaitCause(failure.kind),
                !outageLog(cause).dropLeft(failure, triedAt: Date() - duration.timeInterval, logger: logger)
            {
                // Said once for the outage (``OutageLog/dropLeft(_:triedAt:logger:)``), not once per drop.
                logger.debug("Left \(drop) in the inbox for a retry: \(failure.message)", metadata: metadata)
            } else {
                logger.warning("Left \(drop) in the inbox for a retry: \(failure.message)", metadata: metadata)
            }
        case .vanished:
            logger.debug("\(drop) disappeared before it was ingested", metadata: metadata)
        }
    }
}

extension IngestEngine {
    /// The journal's account of the outages of what drops wait for.
    func outageLog(_ cause: WaitCause) -> OutageLog {
        switch cause {
        case .catalog: catalogOutage
        case .storage: storageOutage
        }
    }

    /// The catalog or the storage answered a try that began at `triedAt` — a drop reached it,
    /// or the daemon's probe of it during an outage succeeded: if an outage was under way, the
    /// journal says, once, that it is over (``OutageLog/answered(triedAt:logger:)``).
    public func answered(_ cause: WaitCause, triedAt: Date = Date()) {
        outageLog(cause).answered(triedAt: triedAt, logger: logger)
    }
}

extension Duration {
    /// In seconds, as Foundation counts them.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
