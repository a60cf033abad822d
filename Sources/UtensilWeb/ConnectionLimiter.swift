import Logging
import NIOCore
import Synchronization

/// Admits the gallery's connections against ``WebLimits``: past the limit in all or from one
/// address a new connection is closed at once, before any byte is read. Once half the
/// connections are open, an address may hold only a small share
/// (``WebLimits/connectionsPerAddressWhenBusy``), so that the last slots stay for new
/// visitors rather than going to the few addresses that filled the first half. What is
/// turned away is logged once per burst, with a count, a second after the first.
final class ConnectionLimiter: Sendable {
    let limits: WebLimits
    private let logger: Logger

    private struct State {
        var open = 0
        var perAddress: [String: Int] = [:]
        var shed = 0
        var shedAddresses: Set<String> = []
        var reportPending = false
    }

    private let state = Mutex(State())

    init(limits: WebLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    /// Whether `channel` may stay; when it may, it is counted until it closes. When it may
    /// not, the caller closes it.
    func admit(_ channel: any Channel) -> Bool {
        let address = channel.remoteAddress?.ipAddress
        let (admitted, report) = state.withLock { state -> (Bool, Bool) in
            let fromAddress = address.map { state.perAddress[$0, default: 0] } ?? 0
            let perAddress = state.open * 2 < limits.connections ? limits.connectionsPerAddress : limits.connectionsPerAddressWhenBusy
            guard state.open < limits.connections, fromAddress < perAddress else {
                state.shed += 1
                state.shedAddresses.insert(address ?? "a Unix socket peer")
                defer { state.reportPending = true }
                return (false, !state.reportPending)
            }
            state.open += 1
            if let address { state.perAddress[address] = fromAddress + 1 }
            return (true, false)
        }
        if report {
            channel.eventLoop.scheduleTask(in: .seconds(1)) { self.report() }
        }
        if admitted {
            channel.closeFuture.whenComplete { _ in self.leave(address) }
        }
        return admitted
    }

    /// Connections open now (for tests).
    var open: Int { state.withLock { $0.open } }

    private func leave(_ address: String?) {
        state.withLock { state in
            state.open -= 1
            guard let address, let count = state.perAddress[address] else { return }
            state.perAddress[address] = count > 1 ? count - 1 : nil
        }
    }

    private func report() {
        let (shed, addresses) = state.withLock { state in
            defer {
                state.shed = 0
                state.shedAddresses = []
                state.reportPending = false
            }
            return (state.shed, state.shedAddresses.count)
        }
        logger.warning(
            "The web gallery turned away \(shed) connection\(shed == 1 ? "" : "s") from \(addresses) address\(addresses == 1 ? "" : "es"): it holds at most \(limits.connections) in all and \(limits.connectionsPerAddress) from one address (\(limits.connectionsPerAddressWhenBusy) once half full)")
    }
}
