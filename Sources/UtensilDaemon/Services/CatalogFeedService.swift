import Foundation
import Logging
import ServiceLifecycle
import UtensilCatalogModel
import UtensilControlProtocol

/// Every host's changes on every host, when several share a catalog (``CatalogChangeFeed``):
/// sends this host's events (``EventBroadcaster/outgoing``) to the other hosts, and follows
/// theirs — shown to `events` followers and the gallery's live updates
/// (``EventBroadcaster/deliverRemote(_:)``, never this host's hooks) and evicting what they
/// make stale from ``ThumbnailCache``.
///
/// When the catalog cannot be reached, following is tried again with back-off (5 s, 10 s,
/// 20 s … at most ``longestWait``), said once in the journal when lost and once when back;
/// the events of that time are not replayed. An event that cannot be sent is dropped (said
/// once per outage). The daemon goes on regardless.
struct CatalogFeedService: Service {
    let feed: any CatalogChangeFeed
    let events: EventBroadcaster
    let thumbnailCache: ThumbnailCache
    let logger: Logger

    /// The longest wait between two attempts to follow again.
    static let longestWait = Duration.seconds(60)

    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await cancelWhenGracefulShutdown { await follow() } }
            group.addTask { await send() }
            // At this service's turn to stop (after the ingest workers), the last events are sent.
            group.addTask {
                try? await gracefulShutdown()
                events.finishOutgoing()
            }
        }
    }

    /// Follows the other hosts' changes until the service is cancelled or shut down.
    private func follow() async {
        let lost = FeedOutage()
        var attempt = 0
        while !Task.isCancelled {
            do throws(CatalogChangeFeedError) {
                try await feed.follow(listening: {
                    if lost.ended() {
                        logger.notice("Following the other hosts' changes again (events of the outage are not replayed)")
                    } else {
                        logger.info("Following the other hosts' changes in the catalog")
                    }
                }, receive: { change in receive(change) })
                return
            } catch {
                // The first failure of an outage starts the back-off again from its shortest wait.
                if lost.began() {
                    logger.warning("Cannot follow the other hosts' changes: \(error)")
                    attempt = 0
                }
            }
            attempt += 1
            do { try await Task.sleep(for: Backoff.delay(afterAttempt: attempt, longest: Self.longestWait)) } catch { return }
        }
    }

    /// One change of another host: decoded, the caches it makes stale evicted, and shown.
    private func receive(_ change: CatalogChange) {
        guard var event = try? LineFraming.decode(EventInfo.self, from: Data(change.payload.utf8)) else {
            logger.debug("Ignored a change from host \(change.host) that is not an event")
            return
        }
        if event.host == nil { event.host = change.host }
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
        events.deliverRemote(event)
    }

    /// Sends this host's events until the workers have stopped and the queue is drained.
    private func send() async {
        let lost = FeedOutage()
        for await event in events.outgoing {
            guard let payload = try? LineFraming.encode(event) else { continue }
            do throws(CatalogChangeFeedError) {
                try await feed.publish(String(decoding: payload.dropLast(), as: UTF8.self))
                if lost.ended() { logger.notice("This host's events reach the other hosts again") }
            } catch {
                switch error {
                case .tooLarge:
                    logger.warning("Event not sent to the other hosts: \(error)")
                case .unavailable:
                    if lost.began() { logger.warning("This host's events do not reach the other hosts: \(error)") }
                }
            }
        }
    }
}
