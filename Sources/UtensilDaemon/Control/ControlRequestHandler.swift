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
    let store: UtensilStore
    let scheduler: DropScheduler
    let events: EventBroadcaster
    let pool: BlockingPool
    let startedAt: Date
    let socketGroup: UInt32
    let watching: String
    let logger: Logger
    let thumbnailCache: ThumbnailCache

    var settings: IngestSettings { store.settings }

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

    /// The blocking part: one store call each.
    private func answer(_ request: ControlRequest, peer: PeerCredentials) -> ControlReply {
        do throws(StoreError) {
            switch request.command {
            case .status:
                return .success(.status(StatusInfo(
                    version: UtensildVersion.current, pid: Int(getpid()),
                    uptimeSeconds: Int(Date().timeIntervalSince(startedAt)), inbox: settings.inbox.description,
                    rejectedDir: settings.rejected.description, stateDir: settings.stateDirectory.description,
                    utensils: try store.count(), queued: 0, inFlight: 0, ingested: 0, rejected: 0, lastError: nil,
                    watching: watching, inboxMissing: false)))
            case .list:
                let sort: CatalogSort = switch request.sort {
                case .name: .name
                case .created: .created
                default: .newestFirst
                }
                let page = try store.list(search: request.search, category: request.category, addedBy: request.addedBy,
                                          sort: sort, limit: request.limit ?? 50, after: request.after)
                return .success(.list(UtensilPage(utensils: page.utensils.map { info($0) }, next: page.next)))
            case .show:
                return .success(.utensil(info(try store.find(request.target ?? ""), preview: request.preview)))
            case .delete:
                let deleted = try store.delete(id: try id(of: request.target), now: request.now)
                let how = deleted.trashedAt == nil ? "Deleted" : "Moved to the trash"
                if deleted.trashedAt == nil { thumbnailCache.remove(deleted.id) }
                logger.notice("\(how): utensil \(deleted.name) (\(deleted.id.uuidString)) for \(peer)",
                              metadata: ["UTENSIL_ID": .string(deleted.id.uuidString), "UTENSIL_NAME": .string(deleted.name),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.deleted(info(deleted)))
            case .trash:
                return .success(.trash(try store.trashed().map { info($0) }))
            case .restore:
                let restored = try store.restore(id: try id(of: request.target), as: request.newName)
                logger.notice("Restored utensil \(restored.name) (\(restored.id.uuidString)) from the trash for \(peer)",
                              metadata: ["UTENSIL_ID": .string(restored.id.uuidString), "UTENSIL_NAME": .string(restored.name),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.restored(info(restored)))
            case .rename:
                let (previous, renamed) = try store.rename(id: try id(of: request.target), to: request.newName ?? "")
                logger.notice("Renamed utensil \(previous.name) to \(renamed.name) (\(renamed.id.uuidString)) for \(peer)",
                              metadata: ["UTENSIL_ID": .string(renamed.id.uuidString), "UTENSIL_NAME": .string(renamed.name),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.renamed(info(renamed)))
            case .categories:
                return .success(.categories(try store.categories().map { CategoryInfo(name: $0.name, count: $0.count) }))
            case .setCategory:
                let changed = try store.setCategory(
                    id: try id(of: request.target), to: request.none ? nil : request.category ?? "")
                logger.notice("Set the category of utensil \(changed.name) (\(changed.id.uuidString)) to \(changed.category ?? "none") for \(peer)",
                              metadata: ["UTENSIL_ID": .string(changed.id.uuidString), "UTENSIL_NAME": .string(changed.name),
                                         "UTENSIL_CATEGORY": .string(changed.category ?? ""),
                                         "PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                return .success(.categorized(info(changed)))
            case .rejected:
                return .success(.rejected(store.rejectedFiles().map {
                    RejectedInfo(file: $0.file, reason: $0.reason, message: $0.message, rejectedAt: $0.rejectedAt, bytes: $0.bytes)
                }))
            case .retry:
                if !request.all {
                    let moved = try store.retry(request.file ?? "")
                    logRetried([moved], for: peer)
                    return .success(.retried([moved]))
                }
                // Everything it can; what it cannot is reported beside, file by file.
                let (moved, failures) = store.retryAll()
                logRetried(moved, for: peer)
                if !failures.isEmpty {
                    logger.warning("Could not move \(failures.count) rejected files back into the inbox for \(peer): \(failures.map { "\($0.file): \($0.message)" }.joined(separator: " "))",
                                   metadata: ["PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
                }
                return .success(.retried(moved, notRetried: failures.map { RetryFailure(file: $0.file, message: $0.message) }))
            case .check:
                let report = try store.check()
                return .success(.check(CheckReport(
                    integrity: report.integrity, rowsWithoutFiles: report.rowsWithoutFiles,
                    filesWithoutRows: report.filesWithoutRows)))
            case .events:
                return .failure(.badRequest, "events is a stream; it is answered elsewhere.")
            }
        } catch {
            return Self.failure(error)
        }
    }

    /// The reply for a store operation that did not happen (or not completely).
    static func failure(_ error: StoreError) -> ControlReply {
        switch error {
        case .catalog(.notFound): .failure(.notFound, "No utensil has that id or name; `utensilctl list` shows them.")
        case .catalog(.duplicateName(let existing)):
            .failure(.duplicateName, "A utensil named \(existing) already exists; choose another name.")
        case .catalog(.invalidCursor): .failure(.badRequest, "That --after cursor was not handed out by this daemon.")
        case .catalog(.ambiguousName(let ids)):
            .failure(.badRequest, "Several utensils have that name; use one of their ids: \(ids.joined(separator: ", ")).")
        case .catalog(let error): .failure(.busy, "The catalog cannot answer just now (\(error)); try again in a moment.")
        case .notFound(let message): .failure(.notFound, message)
        case .invalidName(let message): .failure(.invalidName, message)
        case .duplicateName(let message): .failure(.duplicateName, message)
        case .invalidRequest(let message): .failure(.badRequest, message)
        case .fileSystem(let message), .filesNotRemoved(let message): .failure(.internal, message)
        }
    }

    /// The utensil id a changing command names (only an id, never a name).
    private func id(of target: String?) throws(StoreError) -> UUID {
        guard let target, let id = UUID(uuidString: target) else { throw .catalog(.notFound) }
        return id
    }

    private func logRetried(_ moved: [String], for peer: PeerCredentials) {
        logger.notice("Moved \(moved.count) rejected files back into the inbox for \(peer)",
                      metadata: ["PEER_UID": .stringConvertible(peer.uid), "PEER_PID": .stringConvertible(peer.pid)])
    }

    func info(_ record: UtensilRecord, preview: Bool = false) -> UtensilInfo {
        let thumbnailPath = store.thumbnailPath(of: record).description
        var rgbPreview: RGBPreview?
        if preview, let pixels = thumbnailCache.preview(id: record.id, photo: record.sha256, thumbnailPath: thumbnailPath) {
            rgbPreview = RGBPreview(width: ThumbnailCache.previewSize, height: ThumbnailCache.previewSize, rgb: Data(pixels))
        }
        return UtensilInfo(
            id: record.id.uuidString, name: record.name, fileExtension: record.fileExtension,
            createdAt: record.createdAt, width: record.width, height: record.height, bytes: record.bytes,
            original: store.originalPath(of: record).description, thumbnail: thumbnailPath, category: record.category,
            addedBy: record.addedBy, updatedAt: record.updatedAt, trashedAt: record.trashedAt,
            purgeAt: record.trashedAt.map { store.purgeDate(trashedAt: $0) }, preview: rgbPreview)
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
