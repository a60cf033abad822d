import Foundation
import Logging
import ServiceLifecycle
import UtensilStore

/// Sweeps the storage of what crashes and refused commits left (``UtensilStore/sweepStorage(now:grace:)``):
/// once at start, then every ``interval``, until its turn to stop comes. With several hosts
/// sharing the catalog, the host holding the sweep's lease does it; the others skip their turn.
/// Only where another host's leftovers can be: a bucket, or a state folder several hosts share
/// (one host's own staging is recovered at its start).
struct StorageSweeper: Service {
    let store: UtensilStore
    let logger: Logger

    /// How often the storage is swept: each sweep lists every rendition (a bucket bills the
    /// listing by the thousand keys), so not more often than its grace.
    static let interval = Duration.seconds(3600)
    /// At most this many names in a journal line.
    static let namesLogged = 20

    func run() async {
        await cancelWhenGracefulShutdown { await sweepUntilCancelled() }
    }

    private func sweepUntilCancelled() async {
        while !Task.isCancelled {
            do throws(StoreError) {
                log(try await store.sweepStorage())
            } catch {
                logger.warning("Sweeping the storage failed; it is tried again in an hour: \(error)")
            }
            do { try await Task.sleep(for: Self.interval) } catch { return }
        }
    }

    private func log(_ sweep: UtensilStore.StorageSweep) {
        if sweep.anotherHostSweeps {
            logger.debug("Another host sharing the catalog sweeps the storage now")
        }
        if sweep.changedAnything {
            let removed = sweep.orphansRemoved.prefix(Self.namesLogged).joined(separator: ", ")
            let more = sweep.orphansRemoved.count > Self.namesLogged ? " and \(sweep.orphansRemoved.count - Self.namesLogged) more" : ""
            logger.notice(
                "Swept the storage of what interruptions left over an hour ago: finished \(sweep.rolledForward.count) and undid \(sweep.discarded.count) staged operations, removed \(sweep.orphansRemoved.count) files without a row\(sweep.orphansRemoved.isEmpty ? "" : " (\(removed)\(more))"), aborted \(sweep.uploadsAborted) unfinished uploads")
        }
        for problem in sweep.problems.prefix(Self.namesLogged) {
            logger.warning("\(problem); the next sweep tries again")
        }
        if sweep.problems.count > Self.namesLogged {
            logger.warning("\(sweep.problems.count - Self.namesLogged) more leftovers could not be swept; the next sweep tries again")
        }
    }
}
