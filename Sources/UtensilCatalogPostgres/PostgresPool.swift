import Logging
import PostgresNIO
import Synchronization
import UtensilCatalogModel

/// The catalog's pool of connections: postgres-nio's `PostgresClient`, replaced by a fresh one
/// when the server answers again after an outage, and counted for the metrics.
///
/// While the server is down, postgres-nio's pool retries its connection with a growing
/// back-off (100 ms × 1.25ⁿ, up to a minute; not configurable), and once its circuit breaker
/// has tripped it fails every call at once until one of those retries succeeds: after a
/// one-minute outage its next attempt may be 15 s or more away. So when a
/// call gets no connection, this pool asks the server itself every ``probeInterval`` on a
/// connection of its own (`SELECT 1`, within ``probeTimeout``), and the moment that is
/// answered while no call holds a connection, it starts a new client and retires the old
/// one once the calls using it have returned (a call still waiting for a connection moves to
/// the new one: see ``PostgresLeaseDeadline``).
public final class PostgresPool: Sendable {
    /// How often the server is asked while the pool cannot lease a connection.
    public static let probeInterval = Duration.seconds(1)
    /// How long connecting may take for one question.
    static let probeTimeout = Duration.seconds(3)

    private struct Generation: Sendable {
        var id: Int
        var client: PostgresClient
        var retire: AsyncStream<Void>.Continuation
    }

    private struct State {
        var current: Generation
        /// Calls using each generation's client (leased or waiting).
        var users: [Int: Int] = [:]
        var retired: [Int: AsyncStream<Void>.Continuation] = [:]
        var probing = false
        /// A call got no connection from the current client since it was started.
        var currentFailed = false
        var reading: CatalogPoolReading
    }

    private enum Command: Sendable {
        case run(PostgresClient, AsyncStream<Void>)
        case probe
    }

    /// nil for a pool over a client of the caller's (never replaced).
    private let configuration: PostgresClient.Configuration?
    private let settings: PostgresCatalogSettings?
    private let logger: Logger
    private let state: Mutex<State>
    private let commands: AsyncStream<Command>
    private let commandSink: AsyncStream<Command>.Continuation

    /// A pool for `settings`, replaced after an outage; ``run()`` must run while it is used.
    /// - Parameter logger: the pool's background logger (postgres-nio's chatter; keep it below info).
    public convenience init(settings: PostgresCatalogSettings, logger: Logger) {
        let configuration = settings.clientConfiguration
        self.init(
            configuration: configuration, settings: settings, logger: logger,
            first: PostgresClient(configuration: configuration, backgroundLogger: logger))
    }

    /// A pool over `client`, which the caller runs; never replaced (no probing).
    public convenience init(client: PostgresClient, logger: Logger) {
        self.init(configuration: nil, settings: nil, logger: logger, first: client)
    }

    private init(
        configuration: PostgresClient.Configuration?, settings: PostgresCatalogSettings?, logger: Logger, first: PostgresClient
    ) {
        self.configuration = configuration
        self.settings = settings
        self.logger = logger
        (commands, commandSink) = AsyncStream.makeStream(of: Command.self)
        let (retirement, retire) = AsyncStream.makeStream(of: Void.self)
        let limit = configuration?.options.maximumConnections ?? 0
        state = Mutex(State(
            current: Generation(id: 0, client: first, retire: retire),
            reading: CatalogPoolReading(inUse: 0, waiting: 0, limit: limit, leases: 0, waitSeconds: 0, leaseFailures: 0, renewals: 0)))
        if configuration != nil { commandSink.yield(.run(first, retirement)) }
    }

    /// Which client the pool hands out; it changes when the pool is replaced.
    var generation: Int { state.withLock { $0.current.id } }

    /// What the pool is doing now.
    public var reading: CatalogPoolReading { state.withLock { $0.reading } }

    /// Runs the pool's clients and its probing until the task is cancelled (then every
    /// connection is closed). Call it once, for a pool made from settings.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await command in commands {
                switch command {
                case .run(let client, let retirement):
                    group.addTask {
                        await withDiscardingTaskGroup { running in
                            running.addTask { await client.run() }
                            for await _ in retirement {}
                            running.cancelAll()
                        }
                    }
                case .probe:
                    group.addTask { await self.probeUntilAnswered() }
                }
            }
            group.cancelAll()
        }
    }

    /// Runs `body` on a connection of the current client; counts the wait and the use.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let (generation, client) = state.withLock { state in
            state.users[state.current.id, default: 0] += 1
            state.reading.waiting += 1
            return (state.current.id, state.current.client)
        }
        let asked = ContinuousClock.now
        var leased = false
        defer { finished(generation, leased: leased) }
        return try await client.withConnection { connection in
            let waited = ContinuousClock.now - asked
            state.withLock { state in
                state.reading.waiting -= 1
                state.reading.inUse += 1
                state.reading.leases += 1
                state.reading.waitSeconds += Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
            }
            leased = true
            return try await body(connection)
        }
    }

    private func finished(_ generation: Int, leased: Bool) {
        let (retire, probe) = state.withLock { state -> (AsyncStream<Void>.Continuation?, Bool) in
            if leased {
                state.reading.inUse -= 1
            } else {
                state.reading.waiting -= 1
                state.reading.leaseFailures += 1
            }
            state.users[generation, default: 1] -= 1
            var retire: AsyncStream<Void>.Continuation?
            if state.users[generation] == 0 {
                state.users[generation] = nil
                retire = state.retired.removeValue(forKey: generation)
            }
            // Only the current client's failures count: a retired one may still fail its last calls.
            guard !leased, generation == state.current.id else { return (retire, false) }
            state.currentFailed = true
            let probe = settings != nil && !state.probing
            if probe { state.probing = true }
            return (retire, probe)
        }
        retire?.finish()
        if probe { commandSink.yield(.probe) }
    }

    /// Asks the server every ``probeInterval`` until it answers; then replaces the client
    /// unless a call holds a connection (then the pool connects, and nothing is stuck). Calls
    /// waiting on the old client keep it until they have their connection or give up.
    private func probeUntilAnswered() async {
        guard let settings else { return }
        while true {
            do { try await Task.sleep(for: Self.probeInterval) } catch { return }
            guard await Self.answers(settings, logger: logger) else { continue }
            renewUnlessInUse()
            return
        }
    }

    private func renewUnlessInUse() {
        let fresh = state.withLock { state -> (PostgresClient, AsyncStream<Void>)? in
            state.probing = false
            guard state.currentFailed, state.reading.inUse == 0, let configuration else { return nil }
            state.currentFailed = false
            let old = state.current
            let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            let (retirement, retire) = AsyncStream.makeStream(of: Void.self)
            state.current = Generation(id: old.id + 1, client: client, retire: retire)
            state.reading.renewals += 1
            if state.users[old.id, default: 0] == 0 {
                old.retire.finish()
            } else {
                state.retired[old.id] = old.retire
            }
            return (client, retirement)
        }
        guard let (client, retirement) = fresh else { return }
        logger.debug("The catalog's server answers again: replaced the pool of connections that was backing off")
        commandSink.yield(.run(client, retirement))
    }

    /// Whether a connection of its own to the server answers `SELECT 1` (connecting within
    /// ``probeTimeout``); the connection is closed at once.
    static func answers(_ settings: PostgresCatalogSettings, logger: Logger) async -> Bool {
        var quick = settings
        quick.connectTimeoutSeconds = probeTimeout.components.seconds
        do {
            let connection = try await PostgresConnection.connect(
                configuration: quick.connectionConfiguration(), id: 0, logger: logger)
            var answered = false
            do {
                for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                answered = true
            } catch {}
            try? await connection.close()
            return answered
        } catch {
            return false
        }
    }
}
