/// Something that reports changes below the inbox: `InboxWatcher` (inotify) or `PollingWatcher`.
///
/// Create the source first, then do the startup scan: whatever lands after `init` returns is
/// reported (or covered by a later `.overflow`/`.inboxBack`).
public protocol InboxEventSource: AnyObject, Sendable {
    /// The events, for one consumer. The first call starts the watching thread; the stream ends
    /// when `stop()` is called or the consumer stops iterating (its task is cancelled or it drops
    /// the stream). A second call, or a call after `stop()`, returns a stream that ends at once.
    func events() -> AsyncStream<WatchEvent>
    /// Stops watching; the stream ends once the thread has closed its descriptors. Idempotent.
    func stop()
}
