import Foundation
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
            catalogAnswered(triedAt: Date() - duration.timeInterval)
            storageAnswered(triedAt: Date() - duration.timeInterval)
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
            } else if failure.kind == .catalogUnavailable,
                !catalogOutageStarted(failure, triedAt: Date() - duration.timeInterval)
            {
                // Said once for the outage (``catalogOutageStarted(_:triedAt:)``), not once per drop.
                logger.debug("Left \(drop) in the inbox for a retry: \(failure.message)", metadata: metadata)
            } else if failure.kind == .storageUnavailable,
                !storageOutageStarted(failure, triedAt: Date() - duration.timeInterval)
            {
                // Likewise for the storage (``storageOutageStarted(_:triedAt:)``).
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
    /// A drop was left because the catalog could not answer: true (and the journal says the
    /// catalog is unavailable) only for the first such drop of an outage. A try that began
    /// before the catalog last answered again (one that waited for a connection through the
    /// end of the outage) starts no new outage.
    func catalogOutageStarted(_ failure: TransientFailure, triedAt: Date) -> Bool {
        let started = catalogOutage.withLock { outage in
            guard outage.since == nil else { return false }
            if let answered = outage.answeredAt, triedAt < answered { return false }
            outage.since = Date()
            return true
        }
        if started {
            logger.warning(
                "The catalog is unavailable (\(failure.message)); drops wait in the inbox and are retried with back-off until it answers, none is rejected for it")
        }
        return started
    }

    /// The catalog answered a try that began at `triedAt` — a drop reached it, or the daemon's
    /// probe of it during an outage succeeded: if an outage was under way, the journal says,
    /// once, that it is over. An answer to a try that began before the outage was noticed (a
    /// drop committing on a connection the server had not closed yet, while it stops) proves
    /// nothing about now and ends nothing.
    public func catalogAnswered(triedAt: Date = Date()) {
        let now = Date()
        let since = catalogOutage.withLock { outage -> Date? in
            guard let since = outage.since, triedAt >= since else { return nil }
            outage.since = nil
            outage.answeredAt = now
            return since
        }
        guard let since else { return }
        let seconds = Int(Date().timeIntervalSince(since).rounded())
        logger.notice("The catalog answers again after about \(seconds) s; the drops that waited are being ingested")
    }
}

extension IngestEngine {
    /// A drop was left because the storage (a bucket) did not answer: true (and the journal
    /// says the storage is unreachable) only for the first such drop of an outage, as for the
    /// catalog (``catalogOutageStarted(_:triedAt:)``).
    func storageOutageStarted(_ failure: TransientFailure, triedAt: Date) -> Bool {
        let started = storageOutage.withLock { outage in
            guard outage.since == nil else { return false }
            if let answered = outage.answeredAt, triedAt < answered { return false }
            outage.since = Date()
            return true
        }
        if started {
            logger.warning(
                "The storage does not answer (\(failure.message)); drops wait in the inbox and are retried as soon as it answers again, none is rejected for it")
        }
        return started
    }

    /// The storage answered a try that began at `triedAt` (a drop's, or the daemon's probe
    /// during an outage): if an outage was under way, the journal says once that it is over.
    public func storageAnswered(triedAt: Date = Date()) {
        let now = Date()
        let since = storageOutage.withLock { outage -> Date? in
            guard let since = outage.since, triedAt >= since else { return nil }
            outage.since = nil
            outage.answeredAt = now
            return since
        }
        guard let since else { return }
        let seconds = Int(now.timeIntervalSince(since).rounded())
        logger.notice(
            "The storage answers again after about \(seconds) s (unreachable since \(since.formatted(.iso8601))); the drops that waited are being ingested")
    }
}

/// What the journal's once-per-outage lines rest on (``IngestEngine/catalogOutage``).
struct CatalogOutageState: Sendable {
    /// Since when drops have been left because the catalog could not answer; nil while it answers.
    var since: Date?
    /// When the catalog last answered again after an outage.
    var answeredAt: Date?
}

extension Duration {
    /// In seconds, as Foundation counts them.
    fileprivate var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
