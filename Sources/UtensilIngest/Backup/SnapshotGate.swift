import Foundation

/// Keeps a catalog snapshot from falling between a row's change and its files' move.
///
/// Store operations that commit a row change and then move files (an ingest's commit and the
/// placing of its files; a delete's staging-out and its commit) pass the gate together
/// (``passing(_:)``); a backup closes it (``closed(_:)``) just for the instant its snapshot
/// is taken, so that every row of the snapshot has its files in `originals/` and
/// `thumbnails/`, and no file there lacks its row. A backup waiting to close it keeps new
/// operations out until it has, so a burst of ingests cannot starve it.
final class SnapshotGate: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var passing = 0
    private var closing = 0

    /// Runs `body` as one of the store operations that may run together.
    func passing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        while closing > 0 { condition.wait() }
        passing += 1
        condition.unlock()
        defer {
            condition.lock()
            passing -= 1
            if passing == 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body()
    }

    /// Runs `body` while no store operation is between a row change and its files' move.
    func closed<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        closing += 1
        while passing > 0 { condition.wait() }
        defer {
            closing -= 1
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
