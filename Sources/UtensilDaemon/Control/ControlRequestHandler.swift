import Foundation
import Glibc
import UtensilCatalogModel
import UtensilControlProtocol
import UtensilControlServer
import UtensilCore
import UtensilStore

/// Answers `utensilctl`'s requests (and the web gallery's) from the store and the in-memory
/// counters — never from behind an ingest: decode, authorise (`ChangePolicy`), one store
/// call, encode. Changes are logged with the caller they were made for (`ControlAudit`), and
/// each utensil in a reply says whether it is the caller's favorite.
struct ControlRequestHandler: Sendable {
    let store: UtensilStore
    let scheduler: DropScheduler
    let rethumbing: Rethumbing
    let events: EventBroadcaster
    let startedAt: Date
    let policy: ChangePolicy
    let watching: String
    let audit: ControlAudit
    let thumbnailCache: ThumbnailCache
    /// This host's heartbeat, and the catalog's registry of every host's (`hosts`).
    let heart: HostHeart
    /// Whether the catalog answers: the utensil count within a deadline, or the last one and
    /// since when it has not answered (`status`, `/metrics`, `/readyz`).
    let pulse: Pulse
    /// Whether the storage answers, or since when it has not (`status`, `/readyz`).
    let storagePulse: Pulse

    var settings: IngestSettings { store.settings }

    /// One request line from the control socket: decoded, then answered (`events` by a stream).
    func handle(_ line: String, peer: PeerCredentials) async -> ControlResponse {
        let request: ControlRequest
        do {
            request = try LineFraming.decodeRequest(Data(line.utf8))
        } catch {
            return .reply(LineFraming.line(.failure(error)))
        }
        if case .backup(let destination) = request {
            if let refusal = policy.refusal(of: request, from: peer) {
                audit.refused(request.command.rawValue, for: .peer(peer))
                return .reply(LineFraming.line(.failure(refusal)))
            }
            let backup = BackupStream(store: store, audit: audit)
            return .stream { lines in await backup.run(for: destination, peer: peer, into: lines) }
        }
        guard case .events(let since) = request else {
            return .reply(LineFraming.line(await reply(to: request, caller: .peer(peer))))
        }
        let follower = events.follower()
        return .stream { lines in
            lines.send(LineFraming.line(.success(Subscription(), for: .events)))
            let end = await follower.run(since: since, room: { await lines.waitForRoom() }) { event in
                lines.send(LineFraming.line(.event(event)))
            }
            if let problem = ControlError.followEnded(end) { lines.send(LineFraming.line(.failure(problem))) }
        }
    }

    /// The reply to a decoded request (the web gallery asks here too): authorise, then one
    /// call, its result or its error as the reply.
    func reply(to request: ControlRequest, caller: Caller) async -> ControlReply {
        if let refusal = policy.refusal(of: request, from: caller) {
            audit.refused(request.command.rawValue, for: caller)
            return .failure(refusal)
        }
        switch request {
        case .status: return await status()
        case .list(let options): return await run(request) { () async throws(StoreError) in try await list(options, for: caller) }
        case .show(let target, let preview):
            return await run(request) { () async throws(StoreError) in
                try await info(try await store.find(target), preview: preview, for: caller)
            }
        case .delete(let id, let now):
            return await run(request) { () async throws(StoreError) in try await delete(id, now: now, for: caller) }
        case .rename(let id, let name):
            return await run(request) { () async throws(StoreError) in try await rename(id, to: name, for: caller) }
        case .rejected:
            return await run(request) { () async throws(StoreError) in await store.rejectedFiles().map(RejectedInfo.init) }
        case .retry(let file):
            return await run(request) { () async throws(StoreError) in try await retry(file, for: caller) }
        case .retryAll:
            return await run(request) { () async throws(StoreError) in await retryAll(for: caller) }
        case .check:
            return await run(request) { () async throws(StoreError) in
                let report = CheckReport(try await store.check())
                MemoryBudget.returnFreeMemoryToTheSystem()  // The scan held an entry per file.
                return report
            }
        case .categories:
            return await run(request) { () async throws(StoreError) in try await store.categories().map(CategoryInfo.init) }
        case .favorite(let id):
            return await run(request) { () async throws(StoreError) in try await setFavorite(id, true, for: caller) }
        case .unfavorite(let id):
            return await run(request) { () async throws(StoreError) in try await setFavorite(id, false, for: caller) }
        case .categoryRename(let category, let newName):
            return await run(request) { () async throws(StoreError) in
                changeCategory(try await store.renameCategory(category, to: newName), for: caller)
            }
        case .categoryDelete(let category):
            return await run(request) { () async throws(StoreError) in
                changeCategory(try await store.deleteCategory(category), for: caller)
            }
        case .setCategory(let id, let category):
            return await run(request) { () async throws(StoreError) in try await setCategory(id, to: category, for: caller) }
        case .trash: return await run(request) { () async throws(StoreError) in try await infos(try await store.trashed(), for: caller) }
        case .restore(let id, let name):
            return await run(request) { () async throws(StoreError) in try await restore(id, as: name, for: caller) }
        case .rethumb(let selection): return await startRethumb(selection, for: caller)
        case .events: return .failure(.badRequest, "events is a stream; follow it instead.")
        case .backup: return .failure(.badRequest, "backup answers with a stream of lines; send it over the control socket.")
        case .hosts: return await hosts()
        case .duplicates: return await run(request) { () async throws(StoreError) in try await duplicates() }
        case .notACopy(let id, let other):
            return await run(request) { () async throws(StoreError) in
                // By name too, as `duplicates` shows the pairs: names first.
                try await store.markNotACopy(try await store.find(id).id, try await store.find(other).id)
                return try await duplicates()
            }
        }
    }

    /// Awaits `work` in this request's own task: what it returns is the reply to `request`,
    /// what it throws the error reply.
    private func run<Payload: ControlReplyPayload>(
        _ request: ControlRequest, _ work: () async throws(StoreError) -> Payload
    ) async -> ControlReply {
        do {
            return .success(try await work(), for: request.command)
        } catch {
            return .failure(Self.controlError(error))
        }
    }

    /// Every host sharing the catalog, up or gone as of now; this host's heartbeat is written
    /// first, so that its own row is current.
    private func hosts() async -> ControlReply {
        do throws(CatalogError) {
            try await heart.beat()
            let now = Date()
            let hosts = try await heart.registry.hosts().map { beat in
                HostInfo(
                    name: beat.name, version: beat.version, schema: beat.schema,
                    state: beat.state(at: now) == .up ? .up : .gone,
                    startedAt: beat.startedAt, lastSeen: beat.lastSeen, stoppedAt: beat.stoppedAt, queued: beat.queued,
                    ingested: beat.ingested, rejected: beat.rejected)
            }
            return .success(hosts, for: .hosts)
        } catch {
            return .failure(Self.controlError(.catalog(error)))
        }
    }

    /// The daemon's state: the store's count, the scheduler's counters. While the catalog
    /// cannot answer, `status` still answers: the last count it read, and `lastError` says
    /// since when the catalog is unavailable.
    private func status() async -> ControlReply {
        async let storageReading = storagePulse.read()
        let reading = await pulse.read()
        let counters = await scheduler.counters
        let utensils: Int
        var lastError = counters.lastError
        var lastErrorAt = counters.lastErrorAt
        var passed = counters.waitingForRetry == 0
        switch reading {
        case .success(.unanswered(let lastCount, let since, let detail)):
            utensils = lastCount
            lastError = "the catalog is unavailable since \(since.formatted(.iso8601)) (\(detail)); drops wait in the inbox and are retried"
            lastErrorAt = since
            passed = false
        case .failure(let error):
            return .failure(Self.controlError(error))
        case .success(.answered(let count)):
            utensils = count
        }
        var status = StatusInfo(
            version: UtensildVersion.current, pid: Int(getpid()),
            uptimeSeconds: Int(Date().timeIntervalSince(startedAt)), inbox: settings.inbox.description,
            rejectedDir: settings.rejected.description, stateDir: settings.stateDirectory.description,
            utensils: utensils, queued: counters.queued, inFlight: counters.inFlight, ingested: counters.ingested,
            rejected: counters.rejected, lastError: lastError, watching: watching,
            inboxMissing: counters.inboxMissing)
        if lastError != nil {
            status.lastErrorAt = lastErrorAt
            status.lastErrorPassed = passed
        }
        if let started = await scheduler.oldestInFlightStart() {
            let running = ContinuousClock.now - started
            status.oldestInFlightSeconds = Double(running.components.seconds) + Double(running.components.attoseconds) / 1e18
        }
        status.waitingForRetry = counters.waitingForRetry
        status.waitingForCatalog = counters.waitingForCatalog
        status.waitingForStorage = counters.waitingForStorage
        status.rethumb = await rethumbing.latest
        status.storage = switch await storageReading {
        case .success(.answered): .ok
        case .success(.unanswered(_, let since, let detail)): .unreachable(since: since, detail: detail)
        case .failure(let error): .unreachable(since: Date(), detail: error.description)
        }
        return .success(status, for: .status)
    }

    /// `rethumb`: finds the utensils (each id must name one; `missing` looks at every
    /// thumbnail, preview and fingerprint), starts the run in the background and answers how many it queued.
    private func startRethumb(_ selection: RethumbSelection, for caller: Caller) async -> ControlReply {
        let found: Result<(RethumbInfo.Selection, [UUID], Int), StoreError>
        do throws(StoreError) {
            switch selection {
            case .all:
                found = .success((.all, [], try await store.countAll()))
            case .missing:
                let ids = try await store.missingThumbnails()
                found = .success((.missing, ids, ids.count))
            case .utensils(let targets):
                var ids: [UUID] = []
                for target in targets { ids.append(try await store.find(target, byIDOnly: true).id) }
                found = .success((.ids, ids, ids.count))
            }
        } catch {
            found = .failure(error)
        }
        let (kind, ids, total): (RethumbInfo.Selection, [UUID], Int)
        switch found {
        case .success(let selected): (kind, ids, total) = selected
        case .failure(.notFound):
            return .failure(.notFound, "Not every id names a utensil; `utensilctl list` and `utensilctl trash` show the ids.")
        case .failure(let error): return .failure(Self.controlError(error))
        }
        guard let run = await rethumbing.start(kind, ids: ids, total: total) else {
            let running = await rethumbing.latest
            return .failure(.busy,
                "A rethumb is running already (\(running?.done ?? 0) of \(running?.total ?? 0) done); wait for it to finish (`utensilctl status` shows how far it is), then run this one.")
        }
        audit.filesChanged("Started making \(run.total) thumbnails again (rethumb \(kind.rawValue))", for: caller)
        return .success(RethumbReport(queued: run.total), for: .rethumb)
    }

    // MARK: - One store call each, its journal entry, its reply

    private func list(_ options: ListOptions, for caller: Caller) async throws(StoreError) -> UtensilPage {
        let user = caller.userName
        let page = try await store.list(
            search: options.search, category: options.category, addedBy: options.addedBy,
            favoriteOf: options.favorites ? (user ?? "") : nil, sort: options.sort ?? .newestFirst,
            limit: options.limit ?? 50, after: options.after)
        return UtensilPage(utensils: try await infos(page.utensils, user: user), next: page.next)
    }

    private func delete(_ id: String, now: Bool, for caller: Caller) async throws(StoreError) -> UtensilInfo {
        switch try await store.delete(id: try Self.uuid(id), now: now) {
        case .trashed(let trashed):
            audit.changed("Moved to the trash: utensil \(trashed.name) (\(trashed.id.uuidString))", trashed, for: caller)
            return try await info(trashed, for: caller)
        case .deletedForGood(var deleted):
            thumbnailCache.remove(deleted.id)
            let from = deleted.trashedAt == nil ? "" : " from the trash"
            audit.changed("Deleted for good\(from): utensil \(deleted.name) (\(deleted.id.uuidString))", deleted, for: caller)
            // Gone from the trash too: the reply has no `trashedAt` (nor a purge date).
            deleted.trashedAt = nil
            return try await info(deleted, for: caller)
        }
    }

    private func restore(_ id: String, as newName: String?, for caller: Caller) async throws(StoreError) -> UtensilInfo {
        let restored = try await store.restore(id: try Self.uuid(id), as: newName)
        audit.changed("Restored utensil \(restored.name) (\(restored.id.uuidString)) from the trash", restored, for: caller)
        return try await info(restored, for: caller)
    }

    private func rename(_ id: String, to newName: String, for caller: Caller) async throws(StoreError) -> UtensilInfo {
        let (previous, renamed) = try await store.rename(id: try Self.uuid(id), to: newName)
        audit.changed("Renamed utensil \(previous.name) to \(renamed.name) (\(renamed.id.uuidString))", renamed, for: caller)
        return try await info(renamed, for: caller)
    }

    private func setCategory(_ id: String, to category: String?, for caller: Caller) async throws(StoreError) -> UtensilInfo {
        let changed = try await store.setCategory(id: try Self.uuid(id), to: category)
        audit.changed(
            "Set the category of utensil \(changed.name) (\(changed.id.uuidString)) to \(changed.category ?? "none")",
            changed, for: caller)
        return try await info(changed, for: caller)
    }

    /// `favorite` / `unfavorite`: the caller's own mark, so not journalled as a change of the
    /// catalog (it changes nothing anybody else sees).
    private func setFavorite(_ id: String, _ favorite: Bool, for caller: Caller) async throws(StoreError) -> UtensilInfo {
        guard let user = caller.userName else { throw .invalidRequest("Sign in to mark and see your favorites.") }
        let record = try await store.setFavorite(id: try Self.uuid(id), of: user, favorite)
        var shown = info(record)
        shown.favorite = favorite
        return shown
    }

    /// A category renamed, merged or deleted: journalled, and announced to `events` (the
    /// gallery's chips follow it).
    private func changeCategory(_ change: CategoryChange, for caller: Caller) -> CategoryChange {
        let what = switch change.to {
        case nil: "Deleted the category \(change.from): its \(change.moved) utensils are uncategorised"
        case let to? where change.merged: "Merged the category \(change.from) into \(to) (\(change.moved) utensils moved, \(change.count) in all)"
        case let to?: "Renamed the category \(change.from) to \(to) (\(change.moved) utensils)"
        }
        audit.filesChanged(what, for: caller)
        events.publish(.category(change, at: Date()))
        return change
    }

    private func retry(_ file: String, for caller: Caller) async throws(StoreError) -> RetryOutcome {
        let moved = try await store.retry(file)
        audit.filesChanged("Moved 1 rejected file back into the inbox", for: caller)
        return RetryOutcome(retried: [moved])
    }

    /// Everything it can; what it cannot is reported beside, file by file.
    private func retryAll(for caller: Caller) async -> RetryOutcome {
        let (moved, failures) = await store.retryAll()
        audit.filesChanged("Moved \(moved.count) rejected files back into the inbox", for: caller)
        if !failures.isEmpty {
            audit.filesChanged(
                "Could not move \(failures.count) rejected files back into the inbox: \(failures.map { "\($0.file): \($0.message)" }.joined(separator: " "))",
                for: caller, level: .warning)
        }
        return RetryOutcome(retried: moved, notRetried: failures.map { RetryFailure(file: $0.file, message: $0.message) })
    }

    /// The utensil id a changing command names (only an id, never a name).
    private static func uuid(_ target: String) throws(StoreError) -> UUID {
        guard let id = UUID(uuidString: target) else { throw .notFound(StoreError.noSuchUtensil) }
        return id
    }

    /// The control error for a store operation that did not happen (or not completely).
    static func controlError(_ error: StoreError) -> ControlError {
        switch error {
        case .catalog(.invalidCursor): ControlError(.badRequest, "That --after cursor was not handed out by this daemon.")
        case .catalog(.ambiguousName(let ids)):
            ControlError(.badRequest, "Several utensils have that name; use one of their ids: \(ids.joined(separator: ", ")).")
        case .catalog(let error): ControlError(.busy, "The catalog cannot answer just now (\(error)); try again in a moment.")
        case .notFound(let message): ControlError(.notFound, message)
        case .invalidName(let message): ControlError(.invalidName, message)
        case .duplicateName(let message): ControlError(.duplicateName, message)
        case .invalidRequest(let message): ControlError(.badRequest, message)
        case .fileSystem(let message), .filesNotRemoved(let message): ControlError(.internal, message)
        }
    }

    /// Utensils as the protocol shows them to `user`: each says whether it is their favorite
    /// (one catalog read for all); a web visitor without a user has none.
    private func infos(_ records: [UtensilRecord], user: String?) async throws(StoreError) -> [UtensilInfo] {
        var favorites: Set<UUID> = []
        if let user { favorites = try await store.favorites(of: user, among: records.map(\.id)) }
        return records.map { record in
            var shown = info(record)
            shown.favorite = favorites.contains(record.id)
            return shown
        }
    }

    private func infos(_ records: [UtensilRecord], for caller: Caller) async throws(StoreError) -> [UtensilInfo] {
        try await infos(records, user: caller.userName)
    }

    /// One utensil as `caller` sees it (see ``infos(_:user:)``).
    private func info(_ record: UtensilRecord, preview: Bool = false, for caller: Caller) async throws(StoreError) -> UtensilInfo {
        var shown = info(record)
        if preview { shown.preview = await rgbPreview(of: record) }
        shown.favorite = false
        if let user = caller.userName { shown.favorite = try await store.favorites(of: user, among: [record.id]).contains(record.id) }
        return shown
    }

    /// The pairs of utensils that look alike, newest copy first, at most 1,000.
    private func duplicates() async throws(StoreError) -> [DuplicatePairInfo] {
        try await store.nearDuplicatePairs(limit: 1000).map { DuplicatePairInfo(copy: info($0.copy), original: info($0.original), distance: $0.distance) }
    }

    /// The RGB preview of `record`'s thumbnail (``ThumbnailCache``); nil when it cannot be read.
    private func rgbPreview(of record: UtensilRecord) async -> RGBPreview? {
        let store = store
        guard let pixels = await thumbnailCache.preview(id: record.id, photo: record.sha256, thumbnail: {
            try? await store.readRendition(.thumbnail, of: record.id, fileExtension: "jpeg")
        }) else { return nil }
        return RGBPreview(width: ControlProtocol.previewEdge, height: ControlProtocol.previewEdge, rgb: Data(pixels))
    }

    /// A utensil as the protocol shows it (without its thumbnail's preview, nor whether it is a favorite).
    func info(_ record: UtensilRecord) -> UtensilInfo {
        let thumbnailPath = store.location(.thumbnail, of: record)
        return UtensilInfo(
            id: record.id.uuidString, name: record.name, fileExtension: record.fileExtension,
            createdAt: record.createdAt, width: record.width, height: record.height, bytes: record.bytes,
            original: store.location(.original, of: record), thumbnail: thumbnailPath, category: record.category,
            addedBy: record.addedBy, updatedAt: record.updatedAt, trashedAt: record.trashedAt,
            purgeAt: record.trashedAt.map { store.purgeDate(trashedAt: $0) }, preview: nil,
            previewFile: store.location(.preview, of: record), host: record.host,
            nearDuplicateOf: record.nearDuplicate.map { NearDuplicateInfo(id: $0.id.uuidString, name: $0.name, distance: $0.distance) })
    }
}

extension RejectedInfo {
    init(_ file: UtensilStore.RejectedFile) {
        self.init(file: file.file, reason: file.reason, message: file.message, rejectedAt: file.rejectedAt, bytes: file.bytes)
    }
}

extension CategoryInfo {
    init(_ category: CatalogCategory) {
        self.init(name: category.name, count: category.count)
    }
}

extension CheckReport {
    init(_ report: ConsistencyReport) {
        self.init(integrity: report.integrity, rowsWithoutFiles: report.rowsWithoutFiles, filesWithoutRows: report.filesWithoutRows,
            uploadLeftovers: report.uploadLeftovers, stagedLeftovers: report.stagedLeftovers)
    }
}
