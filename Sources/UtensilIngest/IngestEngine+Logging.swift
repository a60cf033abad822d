import Logging
import UtensilCore

extension IngestEngine {
    /// One log entry per drop, with the journal fields of the contract as metadata.
    func log(_ outcome: IngestOutcome, drop: Drop, duration: Duration) {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        var metadata: Logger.Metadata = .journal([
            .inboxFile: .string(drop.inboxPath.lossyString), .durationMS: .stringConvertible(milliseconds),
        ])
        switch outcome {
        case .ingested(let record), .alreadyIngested(let record):
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
                logger.info("Ingested \(drop) as \(record.name)\(how)", metadata: metadata)
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
            logger.warning("Left \(drop) in the inbox for a retry: \(failure.message)", metadata: metadata)
        case .vanished:
            logger.debug("\(drop) disappeared before it was ingested", metadata: metadata)
        }
    }
}
