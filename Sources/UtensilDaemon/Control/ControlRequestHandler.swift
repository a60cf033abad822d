import Foundation
import Glibc
import Logging
import UtensilCatalog
import UtensilCodec
import UtensilControlProtocol
import UtensilControlServer
import UtensilCore
import UtensilIngest

/// Answers `utensilctl`'s requests from the catalog, the rejected folder and the in-memory
/// counters — never from behind an ingest. Changes (`delete`, `rename`, `retry`) need the
/// peer to be root, the daemon's user or a member of the socket's group, and are logged with
/// the peer's uid and pid.
struct ControlRequestHandler: Sendable {
    let settings: IngestSettings
    let catalog: Catalog
    let scheduler: DropScheduler
    let events: EventBroadcaster
    let pool: BlockingPool
    let startedAt: Date
    let socketGroup: UInt32
    let watching: String
    let logger: Logger
    let thumbnailCache: ThumbnailCache

    func handle(_ line: String, peer: PeerCredentials) async -> ControlResponse {
        let request: ControlRequest
        do {
            request = try LineFraming.decodeRequest(Data(line.utf8))
            try request.validate()
        } catch {
            return .reply(Self.encode(.failure(error)))
        }
        if request.command == .events {
            let stream = events.follow()
            let lines = AsyncStream<String> { continuation in
                continuation.yield(Self.encode(.success(.subscribed)))
                let task = Task {
                    for await event in stream { continuation.yield(Self.encode(.success(.event(event)))) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
            return .stream(lines)
        }
        return .reply(Self.encode(await reply(to: request, peer: peer)))
    }

    /// The reply to a decoded, valid request other than `events` (the web gallery asks here too).
    func reply(to request: ControlRequest, peer: PeerCredentials) async -> ControlReply {
        if [.delete, .rename, .retry, .setCategory, .restore].contains(request.command), !peer.mayChange(socketGroup: socketGroup) {
            logger.warning("Refused \(request.command.rawValue) from \(peer): not root, utensild's user or in the socket's group")
            return .failure(.permissionDenied,
                "Changing utensils needs root or membership in the control socket's group; ask an administrator to add you (usermod -aG utensil $USER).")
        }
        let reply = await pool.run { [self] in answer(request, peer: peer) }
        let counters = await scheduler.counters
        if case .status(var status) = reply.successPayload {
            status.queued = counters.queued
            status.inFlight = counters.inFlight
            status.ingested = counters.ingested
            status.rejected = counters.rejected
            status.lastError = counters.lastError
            status.inboxMissing = counters.inboxMissing
            return .success(.status(status))
        }
        return reply
    }

    /// The blocking part: catalog reads and writes, file moves.
    private func answer(_ request: ControlRequest, peer: PeerCredentials) -> ControlReply {
        do {
            switch request.command {
            case .status:
                return .success(.status(StatusInfo(
                    version: UtensildVersion.current, pid: Int(getpid()),
                    uptimeSeconds: Int(Date().timeIntervalSince(startedAt)), inbox: settings.inbox.description,
                    rejectedDir: settings.rejected.description, stateDir: settings.stateDirectory.description,
                    utensils: try catalog.count(), queued: 0, inFlight: 0, ingested: 0, rejected: 0, lastError: nil,
                    watching: watching, inboxMissing: false)))
            case .list:
                let sort: CatalogSort = switch request.sort {
                case .name: .name
                case .created: .created
                default: .newestFirst
                }
                let page = try catalog.list(search: request.search.map(UtensilName.searchKey(for:)),
                                            category: request.category, addedBy: request.addedBy, sort: sort,
                                            limit: request.limit ?? 50, after: request.after)
                return .success(.list(UtensilPage(utensils: page.utensils.map { info($0) }, next: page.next)))
            case .show:
                let record = try find(request.target ?? "")
                return .success(.utensil(info(record, preview: request.preview)))
            case .delete:
                let record = try find(request.target ?? "", byIDOnly: true)
                if record.trashedAt != nil && !request.now {
                    return .failure(.notFound,
                        "\(record.name) is already in the trash; delete it for good with `utensilctl delete --now \(record.id.uuidString)`.")
                }
                let deleted = try removal.delete(id: record.id, now: request.now)
                let how = deleted.trashedAt == nil ? "Deleted" : "Moved to the trash"
                if deleted.trashedAt == nil { thumbnailCache.remove(deleted.id) }
                logger.notice("\(how): utensil \(deleted.name) (\(deleted.id.uuidString)) for \(peer)",
                              metadata: ["UTENSIL_ID": .string(deleted.id.uuidString), "UTENSIL_NAME": .string(deleted.name),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.deleted(info(deleted)))
            case .trash:
                return .success(.trash(try catalog.trashed().map { info($0) }))
            case .restore:
                let record = try find(request.target ?? "", byIDOnly: true)
                var newName: UtensilName?
                if let wanted = request.newName {
                    do {
                        newName = try UtensilName(validating: wanted)
                    } catch {
                        return .failure(.invalidName, error.message)
                    }
                }
                let restored: UtensilRecord
                let removal = self.removal
                switch Result(catching: { () throws(CatalogError) in try removal.restore(id: record.id, as: newName) }) {
                case .success(let record):
                    restored = record
                case .failure(.duplicateName(let existing)):
                    return .failure(.duplicateName,
                        "A utensil named \(existing) was added meanwhile; restore this one under another name with `utensilctl restore \(record.id.uuidString) --as NEW-NAME`.")
                case .failure(.notFound):
                    return .failure(.notFound, "\(record.name) is not in the trash; `utensilctl trash` lists what is.")
                case .failure(let error):
                    throw error
                }
                logger.notice("Restored utensil \(restored.name) (\(restored.id.uuidString)) from the trash for \(peer)",
                              metadata: ["UTENSIL_ID": .string(restored.id.uuidString), "UTENSIL_NAME": .string(restored.name),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.restored(info(restored)))
            case .rename:
                let record = try find(request.target ?? "", byIDOnly: true)
                let name: UtensilName
                do {
                    name = try UtensilName(validating: request.newName ?? "")
                } catch {
                    return .failure(.invalidName, error.message)
                }
                let renamed = try catalog.rename(
                    id: record.id, name: name.value, nameKey: name.uniquenessKey, searchKey: name.searchKey,
                    claim: settings.claimsNames)
                logger.notice("Renamed utensil \(record.name) to \(renamed.name) (\(renamed.id.uuidString)) for \(peer)",
                              metadata: ["UTENSIL_ID": .string(renamed.id.uuidString), "UTENSIL_NAME": .string(renamed.name),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.renamed(info(renamed)))
            case .categories:
                return .success(.categories(try catalog.categories().map { CategoryInfo(name: $0.name, count: $0.count) }))
            case .setCategory:
                let record = try find(request.target ?? "", byIDOnly: true)
                var category: UtensilName?
                if !request.none {
                    do {
                        category = try UtensilName(validating: request.category ?? "")
                    } catch {
                        return .failure(.invalidName, "The category \(error.problem); choose another.")
                    }
                }
                let changed = try catalog.setCategory(id: record.id, to: category)
                logger.notice("Set the category of utensil \(changed.name) (\(changed.id.uuidString)) to \(changed.category ?? "none") for \(peer)",
                              metadata: ["UTENSIL_ID": .string(changed.id.uuidString), "UTENSIL_NAME": .string(changed.name),
                                         "UTENSIL_CATEGORY": .string(changed.category ?? ""),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.categorized(info(changed)))
            case .rejected:
                return .success(.rejected(rejectedFolder.list()))
            case .retry:
                if !request.all {
                    do {
                        let moved = try rejectedFolder.retry(request.file ?? "")
                        logRetried([moved], for: peer)
                        return .success(.retried([moved]))
                    } catch {
                        switch error {
                        case .notFound(let message): return .failure(.notFound, message)
                        case .invalid(let message): return .failure(.badRequest, message)
                        case .failed(let message): return .failure(.internal, message)
                        }
                    }
                }
                // Everything it can; what it cannot is reported beside, file by file.
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
                    logger.warning("Could not move \(failures.count) rejected files back into the inbox for \(peer): \(failures.map { "\($0.file): \($0.message)" }.joined(separator: " "))",
                                   metadata: ["PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                }
                return .success(.retried(moved, notRetried: failures))
            case .check:
                return .success(.check(try ConsistencyCheck(settings: settings, catalog: catalog).run()))
            case .events:
                return .failure(.badRequest, "events is a stream; it is answered elsewhere.")
            }
        } catch let error as CatalogError {
            switch error {
            case .notFound: return .failure(.notFound, "No utensil has that id or name; `utensilctl list` shows them.")
            case .duplicateName(let existing):
                return .failure(.duplicateName, "A utensil named \(existing) already exists; choose another name.")
            case .invalidCursor: return .failure(.badRequest, "That --after cursor was not handed out by this daemon.")
            case .ambiguousName(let ids):
                return .failure(.badRequest, "Several utensils have that name; use one of their ids: \(ids.joined(separator: ", ")).")
            default: return .failure(.busy, "The catalog cannot answer just now (\(error)); try again in a moment.")
            }
        } catch {
            return .failure(.internal, "Something went wrong: \(error).")
        }
    }

    private var removal: UtensilRemoval { UtensilRemoval(settings: settings, catalog: catalog) }

    private var rejectedFolder: RejectedFolder {
        RejectedFolder(folder: settings.rejected, inbox: settings.inbox)
    }

    private func logRetried(_ moved: [String], for peer: PeerCredentials) {
        logger.notice("Moved \(moved.count) rejected files back into the inbox for \(peer)",
                      metadata: ["PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
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
            rgbPreview = RGBPreview(width: ThumbnailCache.previewSize, height: ThumbnailCache.previewSize, rgb: Data(pixels))
        }
        return UtensilInfo(
            id: record.id.uuidString, name: record.name, fileExtension: record.fileExtension,
            createdAt: record.createdAt, width: record.width, height: record.height, bytes: record.bytes,
            original: path(original: record), thumbnail: thumbnailPath, category: record.category,
            addedBy: record.addedBy, updatedAt: record.updatedAt, trashedAt: record.trashedAt,
            purgeAt: record.trashedAt.map { removal.purgeDate(trashedAt: $0) }, preview: rgbPreview)
    }

    static func encode(_ reply: ControlReply) -> String {
        (try? LineFraming.encode(reply)).map { String(decoding: $0.dropLast(), as: UTF8.self) }
            ?? #"{"v":1,"ok":false,"error":{"code":"internal","message":"The reply could not be encoded."}}"#
    }
}

extension ControlReply {
    var successPayload: ControlPayload? {
        if case .success(let payload) = result { payload } else { nil }
    }
}

extension ControlRequestHandler {
    /// The error line for problems the server answers itself.
    static let problemLine: @Sendable (ControlServerProblem) -> String = { problem in
        switch problem {
        case .busy:
            encode(.failure(.busy, "utensild is serving as many clients as it allows; try again in a moment."))
        case .tooManyForUser(let limit):
            encode(.failure(.busy, "You already have \(limit) connections to utensild open, the most one user may; close some (an `utensilctl events` left running, say) and try again."))
        case .requestTooLarge:
            encode(.failure(.requestTooLarge, "The request is longer than \(ControlProtocol.maximumLineBytes) bytes; send a shorter one."))
        }
    }
}

extension Array where Element == UInt8 {
    var lossyText: String { String(decoding: self, as: UTF8.self) }
}
