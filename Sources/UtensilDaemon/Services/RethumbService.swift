import Foundation
import Logging
import ServiceLifecycle
import UtensilStore

/// `rethumb`'s walks over the catalog (``Rethumbing``), each in this service's task group; and,
/// once at start after an upgrade from a version without previews (`previews/` empty with
/// utensils in the catalog), `rethumb --missing`, which makes each utensil's preview (and any
/// missing thumbnail) behind the drops. It stops after the ingest workers, whose stopped
/// scheduler ends a walk waiting for room.
struct RethumbService: Service {
    let rethumbing: Rethumbing
    let makeMissingPreviews: Bool
    let store: UtensilStore
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                if makeMissingPreviews { group.addTask { await startMissingPreviews() } }
                group.addTask { await rethumbing.runWalks() }
            }
        }
    }

    private func startMissingPreviews() async {
        let found: Result<[UUID], StoreError>
        do throws(StoreError) {
            found = .success(try await store.missingThumbnails())
        } catch {
            found = .failure(error)
        }
        switch found {
        case .success(let ids) where !ids.isEmpty:
            logger.notice(
                "\(store.settings.previews) is empty: making the previews of the \(ids.count) utensils added before previews existed, in the background (rethumb --missing)")
            _ = await rethumbing.start(.missing, ids: ids, total: ids.count)
        case .success:
            break
        case .failure(let error):
            logger.warning("Cannot tell whether previews are missing (\(error)); `utensilctl rethumb --missing` makes them")
        }
    }
}
