import Dispatch
import UtensilSystemd

/// Sends `sd_notify` messages in order from a serial queue of its own: a datagram to a
/// supervisor that reads slowly may block, and must never block the cooperative pool or the
/// shutdown handler.
struct SystemdLink: Sendable {
    let notifier: SystemdNotifier?
    private let queue = DispatchQueue(label: "utensild.sd-notify")

    init(_ notifier: SystemdNotifier?) { self.notifier = notifier }

    var watchdogInterval: Duration? { notifier?.watchdogInterval }

    func send(_ message: @escaping @Sendable (SystemdNotifier) throws -> Void) {
        guard let notifier else { return }
        queue.async { try? message(notifier) }
    }
}
