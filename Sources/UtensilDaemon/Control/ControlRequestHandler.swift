import Foundation
import Glibc
import UtensilCatalog
import UtensilCodec
import UtensilControlProtocol
import UtensilControlServer
import UtensilCore
import UtensilIngest

/// Answers `utensilctl`'s requests (and the web gallery's) from the catalog, the rejected
/// folder and the in-memory counters — never from behind an ingest: decode, authorise
/// (`ChangePolicy`), one call, encode. Changes are logged with the peer (`ControlAudit`).
struct ControlRequestHandler: Sendable {
    let settings: IngestSettings
    let catalog: Catalog
    let scheduler: DropScheduler
    let events: EventBroadcaster
    let pool: BlockingPool
    let startedAt: Date
    let policy: ChangePolicy
    let watching: String
    let audit: ControlAudit
    let thumbnailCache: ThumbnailCache

    /// One request line from the control socket: decoded, then answered (`events` by a stream).
    func handle(_ line: String, peer: PeerCredentials) async -> ControlResponse {
        let request: ControlRequest
        do {
            request = try LineFraming.decodeRequest(Data(line.utf8))
        } catch {
            return .reply(LineFraming.line(.failure(error)))
        }
        guard request == .events else { return .reply(LineFraming.line(await reply(to: request, peer: peer))) }
        let stream = events.follow()
        let lines = AsyncStream<String> { continuation in
            continuation.yield(LineFraming.line(.success(Subscription(), for: .events)))
            let task = Task {
                for await event in stream { continuation.yield(LineFraming.line(.event(event))) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return .stream(lines)
    }

    /// The reply to a decoded request (the web gallery asks here too): authorise, then one
    /// call, its result or error as the reply.
    func reply(to request: ControlRequest, peer: PeerCredentials) async -> ControlReply {
        if let refusal = policy.refusal(of: request, from: peer) {
            audit.refused(request.command.rawValue, for: peer)
            return .failure(refusal)
        }
        switch request {
        case .status: return await status()
        case .list(let options): return await run(request) { try list(options) }
        case .show(let target, let preview): return await run(request) { info(try find(target), preview: preview) }
        case .delete(let id, let now): return await run(request) { try delete(id, now: now, for: peer) }
        case .rename(let id, let name): return await run(request) { try rename(id, to: name, for: peer) }
        case .rejected: return await run(request) { rejectedFolder.list() }
        case .retry(let file): return await run(request) { try retry(file, for: peer) }
        case .retryAll: return await run(request) { retryAll(for: peer) }
        case .check: return await run(request) { try ConsistencyCheck(settings: settings, catalog: catalog).run() }
        case .categories:
            return await run(request) { try catalog.categories().map { CategoryInfo(name: $0.name, count: $0.count) } }
        case .setCategory(let id, let category):
            return await run(request) { try setCategory(id, to: category, for: peer) }
        case .trash: return await run(request) { try catalog.trashed().map { info($0) } }
        case .restore(let id, let name): return await run(request) { try restore(id, as: name, for: peer) }
        case .events: return .failure(.badRequest, "events is a stream; follow it instead.")
        }
    }

    /// Runs `work` on the blocking pool; what it returns is the reply to `request`, what it
    /// throws the error reply.
    private func run<Payload: ControlReplyPayload>(
        _ request: ControlRequest, _ work: @escaping @Sendable () throws -> Payload
    ) async -> ControlReply {
        await pool.run {
            do {
                return .success(try work(), for: request.command)
            } catch {
                return .failure(Self.controlError(error))
            }
        }
    }

    /// The daemon's state: the catalog's count, the scheduler's counters.
    private func status() async -> ControlReply {
        let count = await pool.run { [catalog] in Result { () throws(CatalogError) in try catalog.count() } }
        let counters = await scheduler.counters
        switch count {
        case .failure(let error):
            return .failure(Self.controlError(error))
        case .success(let utensils):
            return .success(StatusInfo(
                version: UtensildVersion.current, pid: Int(getpid()),
                uptimeSeconds: Int(Date().timeIntervalSince(startedAt)), inbox: settings.inbox.description,
                rejectedDir: settings.rejected.description, stateDir: settings.stateDirectory.description,
                utensils: utensils, queued: counters.queued, inFlight: counters.inFlight, ingested: counters.ingested,
                rejected: counters.rejected, lastError: counters.lastError, watching: watching,
                inboxMissing: counters.inboxMissing), for: .status)
        }
    }

    // MARK: - The operations (until the store owns them)

    private func list(_ options: ListOptions) throws -> UtensilPage {
        let page = try catalog.list(
            search: options.search.map(UtensilName.searchKey(for:)), category: options.category,
            addedBy: options.addedBy, sort: options.sort ?? .newestFirst, limit: options.limit ?? 50,
            after: options.after)
        return UtensilPage(utensils: page.utensils.map { info($0) }, next: page.next)
    }

    private func delete(_ target: String, now: Bool, for peer: PeerCredentials) throws -> UtensilInfo {
        let record = try find(target, byIDOnly: true)
        if record.trashedAt != nil && !now {
            throw ControlError(.notFound,
                "\(record.name) is already in the trash; delete it for good with `utensilctl delete --now \(record.id.uuidString)`.")
        }
        let deleted = try removal.delete(id: record.id, now: now)
        let how = deleted.trashedAt == nil ? "Deleted" : "Moved to the trash"
        if deleted.trashedAt == nil { thumbnailCache.remove(deleted.id) }
        audit.changed("\(how): utensil \(deleted.name) (\(deleted.id.uuidString))", deleted, for: peer)
        return info(deleted)
    }

    private func restore(_ target: String, as wanted: String?, for peer: PeerCredentials) throws -> UtensilInfo {
        let record = try find(target, byIDOnly: true)
        var newName: UtensilName?
        if let wanted {
            do {
                newName = try UtensilName(validating: wanted)
            } catch {
                throw ControlError(.invalidName, error.message)
            }
        }
        let restored: UtensilRecord
        do {
            restored = try removal.restore(id: record.id, as: newName)
        } catch .duplicateName(let existing) {
            throw ControlError(.duplicateName,
                "A utensil named \(existing) was added meanwhile; restore this one under another name with `utensilctl restore \(record.id.uuidString) --as NEW-NAME`.")
        } catch .notFound {
            throw ControlError(.notFound, "\(record.name) is not in the trash; `utensilctl trash` lists what is.")
        }
        audit.changed("Restored utensil \(restored.name) (\(restored.id.uuidString)) from the trash", restored, for: peer)
        return info(restored)
    }

    private func rename(_ target: String, to newName: String, for peer: PeerCredentials) throws -> UtensilInfo {
        let record = try find(target, byIDOnly: true)
        let name: UtensilName
        do {
            name = try UtensilName(validating: newName)
        } catch {
            throw ControlError(.invalidName, error.message)
        }
        let renamed = try catalog.rename(
            id: record.id, name: name.value, nameKey: name.uniquenessKey, searchKey: name.searchKey,
            claim: settings.claimsNames)
        audit.changed("Renamed utensil \(record.name) to \(renamed.name) (\(renamed.id.uuidString))", renamed, for: peer)
        return info(renamed)
    }

    private func setCategory(_ target: String, to wanted: String?, for peer: PeerCredentials) throws -> UtensilInfo {
        let record = try find(target, byIDOnly: true)
        var category: UtensilName?
        if let wanted {
            do {
                category = try UtensilName(validating: wanted)
            } catch {
                throw ControlError(.invalidName, "The category \(error.problem); choose another.")
            }
        }
        let changed = try catalog.setCategory(id: record.id, to: category)
        audit.changed(
            "Set the category of utensil \(changed.name) (\(changed.id.uuidString)) to \(changed.category ?? "none")",
            changed, for: peer)
        return info(changed)
    }

    private func retry(_ file: String, for peer: PeerCredentials) throws -> RetryOutcome {
        let moved: String
        do {
            moved = try rejectedFolder.retry(file)
        } catch {
            switch error {
            case .notFound(let message): throw ControlError(.notFound, message)
            case .invalid(let message): throw ControlError(.badRequest, message)
            case .failed(let message): throw ControlError(.internal, message)
            }
        }
        logRetried([moved], for: peer)
        return RetryOutcome(retried: [moved])
    }

    /// Everything it can; what it cannot is reported beside, file by file.
    private func retryAll(for peer: PeerCredentials) -> RetryOutcome {
        var moved: [String] = []
        var failures: [RetryFailure] = []
        for name in rejectedFolder.list().map(\.file) {
            do {
                moved.append(try rejectedFolder.retry(name))
            } catch {
                failures.append(RetryFailure(file: name, message: error.message))
            }
        }
        logRetried(moved, for: peer)
        if !failures.isEmpty {
            audit.filesChanged(
                "Could not move \(failures.count) rejected files back into the inbox: \(failures.map { "\($0.file): \($0.message)" }.joined(separator: " "))",
                for: peer, level: .warning)
        }
        return RetryOutcome(retried: moved, notRetried: failures)
    }

    private func logRetried(_ moved: [String], for peer: PeerCredentials) {
        audit.filesChanged("Moved \(moved.count) rejected files back into the inbox", for: peer)
    }

    /// The control error for what an operation threw.
    private static func controlError(_ error: any Error) -> ControlError {
        switch error {
        case let error as ControlError: return error
        case let error as CatalogError:
            switch error {
            case .notFound: return ControlError(.notFound, "No utensil has that id or name; `utensilctl list` shows them.")
            case .duplicateName(let existing):
                return ControlError(.duplicateName, "A utensil named \(existing) already exists; choose another name.")
            case .invalidCursor: return ControlError(.badRequest, "That --after cursor was not handed out by this daemon.")
            case .ambiguousName(let ids):
                return ControlError(.badRequest, "Several utensils have that name; use one of their ids: \(ids.joined(separator: ", ")).")
            default: return ControlError(.busy, "The catalog cannot answer just now (\(error)); try again in a moment.")
            }
        default:
            return ControlError(.internal, "Something went wrong: \(error).")
        }
    }

    private var removal: UtensilRemoval { UtensilRemoval(settings: settings, catalog: catalog) }

    private var rejectedFolder: RejectedFolder {
        RejectedFolder(folder: settings.rejected, inbox: settings.inbox)
    }

    /// A utensil by id, or (for `show`) by name.
    private func find(_ target: String, byIDOnly: Bool = false) throws -> UtensilRecord {
        if let id = UUID(uuidString: target), let record = try catalog.utensil(id: id) { return record }
        guard !byIDOnly else { throw CatalogError.notFound }
        let matches = try catalog.utensils(nameKey: UtensilName.uniquenessKey(for: target.trimmingCharacters(in: .whitespaces)))
        if matches.count > 1 { throw CatalogError.ambiguousName(ids: matches.map(\.id.uuidString)) }
        guard let record = matches.first else { throw CatalogError.notFound }
        return record
    }

    private func path(original record: UtensilRecord) -> String {
        settings.originalPath(id: record.id.uuidString, fileExtension: record.fileExtension).description
    }

    func info(_ record: UtensilRecord, preview: Bool = false) -> UtensilInfo {
        let thumbnailPath = settings.thumbnailPath(id: record.id.uuidString).description
        var rgbPreview: RGBPreview?
        if preview, let pixels = thumbnailCache.preview(id: record.id, photo: record.sha256, thumbnailPath: thumbnailPath) {
            rgbPreview = RGBPreview(width: ControlProtocol.previewEdge, height: ControlProtocol.previewEdge, rgb: Data(pixels))
        }
        return UtensilInfo(
            id: record.id.uuidString, name: record.name, fileExtension: record.fileExtension,
            createdAt: record.createdAt, width: record.width, height: record.height, bytes: record.bytes,
            original: path(original: record), thumbnail: thumbnailPath, category: record.category,
            addedBy: record.addedBy, updatedAt: record.updatedAt, trashedAt: record.trashedAt,
            purgeAt: record.trashedAt.map { removal.purgeDate(trashedAt: $0) }, preview: rgbPreview)
    }
}

extension Array where Element == UInt8 {
    var lossyText: String { String(decoding: self, as: UTF8.self) }
}
