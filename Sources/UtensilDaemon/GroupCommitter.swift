import UtensilIngest
import UtensilMetrics
import UtensilStore

/// Commits prepared ingests in groups. While one group's fsyncs and transaction run on a
/// blocking thread, the workers go on reading and decoding the next drops; whatever they
/// prepare meanwhile is committed together next: one WAL commit and one fsync per folder for
/// the whole group, and no worker ever waits for a disk. No timer: a lone drop is committed
/// at once.
actor GroupCommitter {
    private let engine: IngestEngine
    private let pool: IngestThreads
    private var waiting: [(prepared: PreparedIngest, reply: CheckedContinuation<IngestOutcome, Never>)] = []
    private var committing = false
    private let metrics: DaemonMetrics?

    /// The most drops committed in one transaction.
    static let largestGroup = 64

    init(engine: IngestEngine, pool: IngestThreads, metrics: DaemonMetrics? = nil) {
        self.engine = engine
        self.pool = pool
        self.metrics = metrics
    }

    /// Commits `prepared` (with any others waiting) and returns its outcome once its row is
    /// durable and its drop removed.
    func commit(_ prepared: PreparedIngest) async -> IngestOutcome {
        if committing {
            return await withCheckedContinuation { waiting.append((prepared, $0)) }
        }
        // No group is being committed: this call commits groups until none is left waiting.
        committing = true
        defer { committing = false }
        var own: IngestOutcome?
        var group: [(prepared: PreparedIngest, reply: CheckedContinuation<IngestOutcome, Never>?)] = [(prepared, nil)]
        while !group.isEmpty {
            let engine = engine
            let batch = group.map(\.prepared)
            let started = ContinuousClock.now
            let outcomes = await pool.run { engine.commit(batch) }
            metrics?.recordCommit(ContinuousClock.now - started)
            for (member, outcome) in zip(group, outcomes) {
                if let reply = member.reply { reply.resume(returning: outcome) } else { own = outcome }
            }
            let taken = min(waiting.count, Self.largestGroup)
            group = waiting.prefix(taken).map { ($0.prepared, $0.reply) }
            waiting.removeFirst(taken)
        }
        return own!
    }
}
