import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UtensilCatalogModel
import UtensilControlProtocol
import UtensilMetrics

/// The catalog's event log, kept and followed (``CatalogEventLog``): appends this host's
/// events (``EventBroadcaster/pending``) in order, numbering them, then hands every event
/// of the log, in `seq` order, to this host's followers (``EventBroadcaster/deliver(_:)``),
/// evicting from ``ThumbnailCache`` what other hosts' changes make stale.
///
/// With a shared catalog, the other hosts are woken by the change feed
/// (``CatalogChangeFeed``: each appended event is published with its `seq`), and the log is
/// also read every ``tick`` and whenever the feed is followed again: a host cut off from the
/// catalog catches up from the log once it answers, missing nothing the log keeps. An event
/// from a host whose utensild does not number events (a rolling upgrade) arrives by the feed
/// alone and is handed over as it comes.
///
/// When the catalog cannot be reached, this host's events are shown to its own followers at
/// once (without a `seq`) and appended once it answers (the other hosts see them then); said
/// once in the journal when it begins and once when it ends.
struct EventLogService: Service {
    let log: any CatalogEventLog
    let feed: (any CatalogChangeFeed)?
    let events: EventBroadcaster
    let thumbnailCache: ThumbnailCache
    let metrics: DaemonMetrics?
    let logger: Logger

    /// How often the log is read with a shared catalog even when no host said it changed.
    static let tick = Duration.seconds(5)
    /// This host's events appended in one transaction at most.
    static let batch = 200
    /// Events read from the log at a time.
    static let page = 500
    /// Appends between two prunings of the log.
    static let pruneEvery = 1_000

    /// What the reader has handed over, and the `seq`s it must not hand over again.
    private final class Progress: Sendable {
        let state = Mutex<(delivered: Int64, shown: Set<Int64>)>((0, []))
    }

    func run() async {
        let progress = Progress()
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        guard let start = await newestSeq() else { return }
        progress.state.withLock { $0.delivered = start }
        await withDiscardingTaskGroup { group in
            group.addTask { await cancelWhenGracefulShutdown { await read(wakes, progress: progress) } }
            if let feed {
                group.addTask { await cancelWhenGracefulShutdown { await follow(feed, wake: wake) } }
                group.addTask {
                    while (try? await Task.sleep(for: Self.tick)) != nil { wake.yield() }
                }
            }
            // At this service's turn to stop (after the ingest workers), the last events are
            // appended; then the other tasks end.
            group.addTask {
                try? await gracefulShutdown()
                events.pending.finish()
            }
            await append(wake: wake, progress: progress)
            group.cancelAll()
        }
    }

    /// The newest `seq` in the log when this host starts (the followers get what comes after).
    private func newestSeq() async -> Int64? {
        var attempt = 0
        while !Task.isCancelled {
            do {
                return try await log.eventRange()?.upperBound ?? 0
            } catch {
                if attempt == 0 { logger.warning("Cannot read the catalog's event log yet (\(error)); trying again") }
            }
            attempt += 1
            do { try await Task.sleep(for: Backoff.delay(afterAttempt: attempt, longest: .seconds(5))) } catch { return nil }
        }
        return nil
    }

    // MARK: Appending this host's events

    private func append(wake: AsyncStream<Void>.Continuation, progress: Progress) async {
        let outage = FeedOutage()
        var sinceLastPrune = 0
        for await _ in events.pending.added {
            await appendWaiting(wake: wake, progress: progress, outage: outage, prunedAfter: &sinceLastPrune)
        }
        await appendWaiting(wake: wake, progress: progress, outage: outage, prunedAfter: &sinceLastPrune)
    }

    private func appendWaiting(
        wake: AsyncStream<Void>.Continuation, progress: Progress, outage: FeedOutage, prunedAfter appended: inout Int
    ) async {
        let host = events.host ?? ""
        while true {
            let batch = events.pending.take(Self.batch)
            if batch.isEmpty { return }
            if case let dropped = events.pending.takeDropped(), dropped > 0 {
                logger.warning("\(dropped) events could not be kept for the catalog's event log while it was unreachable; other hosts and later replays do not see them")
            }
            let payloads = batch.map { LineFraming.text($0) ?? "{}" }
            var shownAlready = false
            var attempt = 0
            var seqs: [Int64] = []
            while true {
                do {
                    seqs = try await log.appendEvents(payloads, host: host)
                    if outage.ended() { logger.notice("This host's events are in the catalog's event log again") }
                    break
                } catch {
                    if outage.began() {
                        logger.warning("Cannot add this host's events to the catalog's event log (\(error)); they are shown here and added once it answers")
                    }
                    if !shownAlready {
                        // Followers here see them now, unnumbered; the log's copies are not shown again.
                        for event in batch { events.deliver(event) }
                        shownAlready = true
                    }
                    attempt += 1
                    let shuttingDown = events.pending.isFinished
                    if shuttingDown && attempt >= 3 {
                        logger.warning("\(batch.count) events were not added to the catalog's event log before the stop; other hosts do not see them")
                        return
                    }
                    do {
                        try await Task.sleep(for: Backoff.delay(afterAttempt: attempt, longest: .seconds(5)) / (shuttingDown ? 4 : 1))
                    } catch {
                        return
                    }
                }
            }
            if shownAlready { progress.state.withLock { $0.shown.formUnion(seqs) } }
            wake.yield()
            if let feed {
                for (event, seq) in zip(batch, seqs) { await tellOtherHosts(event, seq: seq, feed: feed) }
            }
            appended += seqs.count
            if appended >= Self.pruneEvery {
                appended = 0
                try? await log.pruneEvents(keeping: CatalogEventLogLimits.kept)
            }
        }
    }

    /// Wakes the other hosts' readers: the event with its `seq` (a host that does not number
    /// events shows it as it comes), or only the `seq` when the event is too large for the feed.
    private func tellOtherHosts(_ event: EventInfo, seq: Int64, feed: any CatalogChangeFeed) async {
        var numbered = event
        numbered.seq = seq
        guard let line = LineFraming.text(numbered) else { return }
        do throws(CatalogChangeFeedError) {
            try await feed.publish(line)
        } catch {
            if case .tooLarge = error { try? await feed.publish("{\"seq\":\(seq)}") }
            // Unreachable: the other hosts read the log on their next tick.
        }
    }

    // MARK: Reading the log

    private func read(_ wakes: AsyncStream<Void>, progress: Progress) async {
        let outage = FeedOutage()
        for await _ in wakes {
            do throws(CatalogError) {
                while !Task.isCancelled {
                    let after = progress.state.withLock { $0.delivered }
                    let entries = try await log.events(after: after, limit: Self.page)
                    for entry in entries { hand(entry, progress: progress) }
                    if entries.count < Self.page { break }
                }
                if outage.ended() { logger.notice("Reading the catalog's event log again; the events meanwhile were shown") }
            } catch {
                if outage.began() {
                    logger.warning("Cannot read the catalog's event log (\(error)); the events meanwhile are shown once it answers")
                }
            }
        }
    }

    /// One entry of the log: to the followers, unless it was shown already.
    private func hand(_ entry: CatalogEvent, progress: Progress) {
        let shownAlready = progress.state.withLock { state in
            state.delivered = max(state.delivered, entry.seq)
            return state.shown.remove(entry.seq) != nil
        }
        metrics?.recordEventSeq(entry.seq)
        guard !shownAlready, let event = EventBroadcaster.event(entry) else { return }
        if entry.host != events.host {
            evictStale(event)
            metrics?.recordRemoteEventDelay(Date().timeIntervalSince(event.at))
        }
        events.deliver(event)
    }

    /// What another host's change makes stale in the thumbnail cache.
    private func evictStale(_ event: EventInfo) {
        switch event.kind {
        case .ingested:
            // A replacement keeps the id: its old preview must go.
            if let id = event.utensil.flatMap({ UUID(uuidString: $0.id) }) { thumbnailCache.remove(id) }
        case .rethumb:
            // Thumbnails rewritten from the same photos: the cache cannot tell which.
            thumbnailCache.removeAll()
        case .rejected, .category:
            break
        }
    }

    // MARK: Following the other hosts

    /// Follows the feed until the service stops: each numbered change wakes the reader, each
    /// unnumbered one (a host that does not number events) is handed over as it comes.
    private func follow(_ feed: any CatalogChangeFeed, wake: AsyncStream<Void>.Continuation) async {
        let lost = FeedOutage()
        var attempt = 0
        while !Task.isCancelled {
            do throws(CatalogChangeFeedError) {
                try await feed.follow(listening: {
                    if lost.ended() {
                        logger.notice("Following the other hosts' changes again; the changes meanwhile are read from the catalog")
                    } else {
                        logger.info("Following the other hosts' changes in the catalog")
                    }
                    wake.yield()
                }, receive: { change in receive(change, wake: wake) })
                return
            } catch {
                if lost.began() {
                    logger.warning("Cannot follow the other hosts' changes: \(error)")
                    attempt = 0
                }
            }
            attempt += 1
            do { try await Task.sleep(for: Backoff.delay(afterAttempt: attempt, longest: .seconds(5))) } catch { return }
        }
    }

    private struct Numbered: Decodable { var seq: Int64? }

    private func receive(_ change: CatalogChange, wake: AsyncStream<Void>.Continuation) {
        let data = Data(change.payload.utf8)
        if let numbered = try? JSONDecoder().decode(Numbered.self, from: data), numbered.seq != nil {
            wake.yield()
            return
        }
        guard var event = try? LineFraming.decode(EventInfo.self, from: data) else {
            logger.debug("Ignored a change from host \(change.host) that is not an event")
            return
        }
        if event.host == nil { event.host = change.host }
        evictStale(event)
        events.deliver(event)
    }
}
