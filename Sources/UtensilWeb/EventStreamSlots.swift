import Synchronization

/// Admits the gallery's event streams against ``WebLimits``: a stream holds its connection
/// for as long as the page is open, so streams get at most `eventStreams` of the listener's
/// connections in all and `eventStreamsPerAddress` from one address, leaving the rest of the
/// listener to everyone else.
final class EventStreamSlots: Sendable {
    let limits: WebLimits
    private let state = Mutex<(open: Int, perAddress: [String: Int])>((0, [:]))

    init(limits: WebLimits) { self.limits = limits }

    /// A slot for a stream from `address` (nil: a Unix socket peer, counted only in all), or
    /// nil past a limit. The slot is given back when the ticket is released.
    func take(from address: String?) -> Ticket? {
        let admitted = state.withLock { state -> Bool in
            let fromAddress = address.map { state.perAddress[$0, default: 0] } ?? 0
            guard state.open < limits.eventStreams, fromAddress < limits.eventStreamsPerAddress else { return false }
            state.open += 1
            if let address { state.perAddress[address] = fromAddress + 1 }
            return true
        }
        return admitted ? Ticket(slots: self, address: address) : nil
    }

    /// Streams open now (for tests).
    var open: Int { state.withLock { $0.open } }

    private func release(_ address: String?) {
        state.withLock { state in
            state.open -= 1
            guard let address, let count = state.perAddress[address] else { return }
            state.perAddress[address] = count > 1 ? count - 1 : nil
        }
    }

    /// One admitted stream; its slot is free again when the ticket goes away (the response
    /// body that holds it ended, or was never started).
    final class Ticket: Sendable {
        private let slots: EventStreamSlots
        private let address: String?

        fileprivate init(slots: EventStreamSlots, address: String?) {
            self.slots = slots
            self.address = address
        }

        deinit { slots.release(address) }
    }
}
