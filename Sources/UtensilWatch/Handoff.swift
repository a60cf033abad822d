import Synchronization

/// Holds a non-`Sendable` value until one thread takes it over (then it is that thread's alone).
final class Handoff<Value>: Sendable {
    private let slot: Mutex<Value?>

    init(_ value: sending Value) { slot = Mutex(value) }

    /// The value, the first time only.
    func take() -> sending Value? { slot.withLock { $0.take() } }
}
