import Glibc
import UtensilControlProtocol
import UtensilControlServer
import UtensilIngest
import UtensilWeb

/// The web gallery's view of the daemon: the control handler's replies (so the API's JSON is
/// `utensilctl --json`'s), its event stream and the state folder's layout.
struct WebGalleryBackend: GalleryBackend {
    let handler: ControlRequestHandler
    let settings: IngestSettings

    func answer(_ request: ControlRequest, webUser: String?) async -> ControlReply {
        do {
            try request.validate()
        } catch {
            return .failure(error)
        }
        guard request.command != .events else { return .failure(.badRequest, "events is a stream; follow it instead.") }
        let changes = [ControlCommand.delete, .rename, .retry].contains(request.command)
        if changes && webUser == nil {
            return .failure(.permissionDenied, "Sign in to change utensils.")
        }
        // A signed-in web user acts with the daemon's own rights; the log names the web user.
        return await handler.reply(to: request, peer: PeerCredentials(pid: getpid(), uid: geteuid(), gid: getegid()))
    }

    func followEvents() -> AsyncStream<EventInfo> { handler.events.follow() }

    func thumbnailPath(id: String) -> String { settings.thumbnailPath(id: id).description }

    var inbox: String { settings.inbox.description }

    var maxFileBytes: Int { settings.maxFileBytes }

    let usersFile: String

    func runBlocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T { await handler.pool.run(work) }
}
