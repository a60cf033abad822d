import Foundation
import Logging
import ServiceLifecycle
import UtensilCatalogModel
import UtensilStore

/// Empties the trash of utensils kept there for `trash_days`: once at start, then
/// periodically (a tenth of the period, between a second and an hour), awaiting the store in
/// its own task, until its turn to stop comes. Only in the daemon's group with `trash_days > 0`. With
/// several hosts sharing the catalog, the host holding the purge's lease does it
/// (`UtensilStore.trashPurgeDuty`); the others skip their turn.
struct TrashPurger: Service {
    let store: UtensilStore
    let logger: Logger

    /// At most this many names in the journal line of one purge.
    static let namesLogged = 20

    var interval: Duration {
        .milliseconds(Int(min(max(store.settings.trashDays * 86_400 / 10, 1), 3600) * 1000))
    }

    func run() async {
        await cancelWhenGracefulShutdown { await purgeUntilCancelled() }
    }

    private func purgeUntilCancelled() async {
        guard store.settings.trashDays > 0 else { return }  // Deletes happen at once.
        while !Task.isCancelled {
            let result: Result<UtensilStore.Purge, StoreError>
            do throws(StoreError) {
                result = .success(try await store.purgeExpired())
            } catch {
                result = .failure(error)
            }
            switch result {
            case .success(let purge) where !purge.purged.isEmpty:
                let purged = purge.purged
                let names = purged.prefix(Self.namesLogged).map(\.name).joined(separator: ", ")
                let more = purged.count > Self.namesLogged ? " and \(purged.count - Self.namesLogged) more" : ""
                let leftovers = purge.filesNotRemoved.isEmpty
                    ? "" : "; \(purge.filesNotRemoved.count) of their files could not be removed and wait for the next start"
                logger.notice(
                    "Purged \(purged.count) utensils kept in the trash for \(store.settings.trashDays) days: \(names)\(more)\(leftovers)",
                    metadata: .journal([.purgedCount: .stringConvertible(purged.count)]))
            case .success(let purge) where purge.anotherHostPurges:
                logger.debug("Another host sharing the catalog purges the trash now")
            case .success:
                break
            case .failure(let error):
                logger.warning("Purging the trash failed; it is tried again later: \(error)")
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
