import Foundation
import UtensilControlProtocol
import UtensilControlServer
import UtensilStorage
import UtensilStore

/// `backup`'s answer: the store's backup, awaited in the request's own task, reported as it goes —
/// a `backupProgress` line when the catalog is written and at each whole percent of the
/// files, then the `backup` summary (or the error). A client that leaves cancels it, and
/// the backup removes what it had written.
struct BackupStream: Sendable {
    let store: UtensilStore
    let audit: ControlAudit

    /// Runs the backup, sending its lines into `lines` (at most about a hundred: the queue's
    /// bound is never reached); cancelled (the client left), the backup stops and removes
    /// what it had written.
    func run(for destination: BackupDestination, peer: PeerCredentials, into lines: FollowerQueue<String>) async {
        let request = BackupRequest(
            destination: destination.path,
            parentIdentity: destination.parentDevice.flatMap { device in
                destination.parentInode.map { FileIdentity(device: device, inode: $0) }
            },
            utensildVersion: UtensildVersion.current)
        var lastPercent = -1
        let result: Result<BackupSummary, BackupError>
        do throws(BackupError) {
            result = .success(try await store.backup(request, progress: { progress in
                switch progress {
                case .catalogWritten(let utensils):
                    lines.send(LineFraming.line(.backupProgress(.init(phase: .catalog, done: 0, total: utensils))))
                case .files(let done, let total):
                    let percent = done * 100 / max(total, 1)
                    guard percent != lastPercent else { return }
                    lastPercent = percent
                    lines.send(LineFraming.line(.backupProgress(.init(phase: .files, done: done, total: total))))
                }
            }, isCancelled: { Task.isCancelled }))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let summary):
            audit.filesChanged(
                "Backed up \(summary.manifest.counts.utensils) utensils and \(summary.manifest.counts.trash) in the trash into \(summary.destination) (\(summary.linked) files linked, \(summary.copied) copied)",
                for: .peer(peer))
            lines.send(LineFraming.line(.success(BackupInfo(summary), for: .backup)))
        case .failure(.cancelled):
            audit.filesChanged("A backup into \(destination.path) was cancelled: its client left", for: .peer(peer), level: .warning)
        case .failure(let error):
            audit.filesChanged("A backup into \(destination.path) failed: \(error)", for: .peer(peer), level: .warning)
            lines.send(LineFraming.line(.failure(Self.controlError(error))))
        }
    }

    static func controlError(_ error: BackupError) -> ControlError {
        switch error {
        case .invalidDestination, .destinationExists, .parentMissing, .parentNotShared, .insideState:
            ControlError(.badRequest, error.description)
        case .readOnlyForDaemon, .noPermission: ControlError(.permissionDenied, error.description)
        case .catalog, .storage: ControlError(.busy, error.description)
        case .originalMissing, .originalDamaged, .keptChanging, .fileSystem, .cancelled: ControlError(.internal, error.description)
        }
    }
}

extension BackupInfo {
    init(_ summary: BackupSummary) {
        let counts = summary.manifest.counts
        self.init(
            destination: summary.destination, createdAt: summary.createdAt, utensils: counts.utensils, trash: counts.trash,
            categories: counts.categories, files: counts.files, bytes: counts.bytes, linked: summary.linked,
            copied: summary.copied, missing: summary.manifest.missing.count)
    }
}
