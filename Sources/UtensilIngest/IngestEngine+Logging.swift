import Logging
import UtensilCore

extension IngestEngine {
    /// One log entry per drop, with the journal fields of the contract as metadata.
    func log(_ outcome: IngestOutcome, drop: Drop, duration: Duration) {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        var metadata: Logger.Metadata = [
            "INBOX_FILE": .string(drop.inboxPath.lossyString),
            "DURATION_MS": .stringConvertible(milliseconds),
        ]
        switch outcome {
        case .ingested(let record), .alreadyIngested(let record):
            metadata["MESSAGE_ID"] = .string(MessageID.ingested.rawValue)
            metadata["UTENSIL_ID"] = .string(record.id.uuidString)
            metadata["UTENSIL_NAME"] = .string(record.name)
            if let category = record.category { metadata["UTENSIL_CATEGORY"] = .string(category) }
            if let addedBy = record.addedBy { metadata["UTENSIL_ADDED_BY"] = .string(addedBy) }
            let how = if case .alreadyIngested = outcome { " (its commit had happened before an interruption)" } else { "" }
            if record.updatedAt != nil, case .ingested = outcome {
                // Only a replacement's row has `updatedAt` when it comes from an ingest.
                logger.info("Replaced the photo of utensil \(record.name) with \(drop)", metadata: metadata)
            } else {
                logger.info("Ingested \(drop) as \(record.name)\(how)", metadata: metadata)
            }
        case .rejected(let rejection, let rejectedAs):
            let isCrash = rejection.reason == .decoderCrash
            metadata["MESSAGE_ID"] = .string((isCrash ? MessageID.decoderCrash : MessageID.rejected).rawValue)
            metadata["REJECT_REASON"] = .string(rejection.reason.rawValue)
            metadata["REJECTED_AS"] = .string(rejectedAs)
            logger.notice("Rejected \(drop) (\(rejection.reason.rawValue)): \(rejection.message)", metadata: metadata)
        case .retryLater(let failure):
            metadata["MESSAGE_ID"] = .string(MessageID.retryLater.rawValue)
            metadata["RETRY_REASON"] = .string(failure.kind.rawValue)
            logger.warning("Left \(drop) in the inbox for a retry: \(failure.message)", metadata: metadata)
        case .vanished:
            logger.debug("\(drop) disappeared before it was ingested", metadata: metadata)
        }
    }
}
