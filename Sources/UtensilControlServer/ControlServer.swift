import Glibc
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import UtensilControlProtocol

/// What the server does with one request line.
public enum ControlResponse: Sendable {
    /// Send this line and wait for the next request.
    case reply(String)
    /// Send the lines `produce` sends until it returns or the client leaves (`events`,
    /// `backup`). The server runs it in the connection's own task group and cancels it when
    /// the client leaves (or the server shuts down): no task outlives its connection. At
    /// most `ControlProtocol.maximumFollowerBacklog` lines wait for a client that does not
    /// read; past that it is told it fell behind and is disconnected (`send` then returns
    /// false: stop producing).
    case stream(@Sendable (_ lines: FollowerQueue<String>) async -> Void)
}

/// The control socket: a relay with no policy. It frames newline-delimited requests, reads
/// each peer's credentials from the kernel, bounds line length, idle time and the number of
/// clients, and hands each line to `handler`. One bad client never disturbs another.
///
/// Slow clients cannot lock operators out: the idle time-out counts complete request lines,
/// not bytes (a client dribbling a line it never finishes is closed like a silent one), and
/// at the client limit a newcomer takes the slot of the connection that has waited longest
/// for its next request; one user holds at most `maximumClientsPerUser` connections, and the
/// last `reservedClients` slots are kept for root and the daemon's own user (see `ClientTable`).
public struct ControlServer: Service {
    public typealias Handler = @Sendable (_ line: String, _ peer: PeerCredentials) async -> ControlResponse

    let socket: ListeningSocket
    let handler: Handler
    let maximumLineBytes: Int
    let maximumClients: Int
    let maximumClientsPerUser: Int
    let reservedClients: Int
    let idleTimeout: TimeAmount
    /// Lines that may wait for a follower (`events`, `backup`) that does not read.
    let followerBacklog: Int
    let logger: Logger
    private let clients = ClientTable()

    /// A server with the protocol's limits (`ControlProtocol`); tests pass smaller ones.
    public init(
        socket: ListeningSocket, maximumLineBytes: Int = ControlProtocol.maximumLineBytes,
        maximumClients: Int = ControlProtocol.maximumClients,
        maximumClientsPerUser: Int = ControlProtocol.maximumClientsPerUser,
        reservedClients: Int = ControlProtocol.reservedClients,
        idleTimeout: TimeAmount = .seconds(Int64(ControlProtocol.idleTimeoutSeconds)),
        followerBacklog: Int = ControlProtocol.maximumFollowerBacklog, logger: Logger,
        handler: @escaping Handler
    ) {
        self.followerBacklog = followerBacklog
        self.socket = socket
        self.maximumLineBytes = maximumLineBytes
        self.maximumClients = maximumClients
        self.maximumClientsPerUser = maximumClientsPerUser
        self.reservedClients = reservedClients
        self.idleTimeout = idleTimeout
        self.logger = logger
        self.handler = handler
    }

    public func run() async throws {
        let maximumLineBytes = maximumLineBytes
        let idleTimeout = idleTimeout
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
            .bind(NIOBSDSocket.Handle(socket.descriptor)) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(ByteToMessageHandler(BoundedLineDecoder(maximumBytes: maximumLineBytes)))
                    // After the line decoder: only complete lines count as activity, so bytes
                    // dribbled into a line that never ends do not keep a connection open.
                    try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout), name: Self.idleHandlerName)
                    try pipeline.addHandler(IdleCloser())
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        defer { socket.removeFile() }
        try await cancelWhenGracefulShutdown {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask {
                            // On shutdown, close the connection: a client that never reads
                            // would otherwise hold a suspended write forever.
                            let channel = connection.channel
                            await withTaskCancellationHandler {
                                await self.serve(connection)
                            } onCancel: {
                                channel.close(promise: nil)
                            }
                        }
                    }
                }
            }
        }
    }

    static let idleHandlerName = "utensild.idle"

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        let peer = await Self.credentials(of: connection.channel)
        let daemonUser = geteuid()
        let limits = ClientTable.Limits(
            total: maximumClients, perUser: maximumClientsPerUser, reserved: reservedClients,
            privileged: { $0 == 0 || $0 == daemonUser })
        let admission = clients.enter(connection.channel, uid: peer.uid, limits: limits)
        defer { if case .admitted(let id) = admission { clients.leave(id) } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                switch admission {
                case .admitted: break
                case .refused:
                    try await outbound.write(ByteBuffer(string: Self.line(.tooManyClients) + "\n"))
                    return
                case .refusedForUser:
                    logger.debug("Turned away a control connection from \(peer): its user holds \(maximumClientsPerUser) already")
                    try await outbound.write(ByteBuffer(string: Self.line(.tooManyForUser(limit: maximumClientsPerUser)) + "\n"))
                    return
                }
                guard case .admitted(let id) = admission else { return }
                do {
                    var lines = inbound.makeAsyncIterator()
                    while let line = try await lines.next() {
                        clients.update(id, .busy)
                        switch await handler(String(buffer: line), peer) {
                        case .reply(let text):
                            try await outbound.write(ByteBuffer(string: text + "\n"))
                            clients.update(id, .waiting(since: .now()))
                        case .stream(let produce):
                            clients.update(id, .following)
                            // A follower sends nothing more: no idle time-out, and its leaving
                            // (end of input) ends the stream.
                            try? await connection.channel.pipeline.removeHandler(name: Self.idleHandlerName).get()
                            try await Self.follow(produce, outbound: outbound, channel: connection.channel, backlog: followerBacklog)
                            return
                        }
                    }
                } catch is BoundedLineDecoder.LineTooLong {
                    try await outbound.write(ByteBuffer(string: Self.line(.requestTooLarge) + "\n"))
                }
            }
        } catch {
            logger.debug("Control connection from \(peer) ended: \(error)")
        }
    }

    /// The line of a problem the server answers itself.
    private static func line(_ problem: ControlError) -> String { LineFraming.line(.failure(problem)) }

    /// Runs `produce` and writes the lines it sends until it has returned and every line is
    /// written, or the client left (the connection closed); then cancels what is left. A
    /// client that lets `backlog` lines wait has fallen behind: it is sent the lines that
    /// wait and a `busy` line saying so, and is closed after `ControlProtocol.fellBehindGraceSeconds`
    /// even if it never takes them.
    private static func follow(
        _ produce: @escaping @Sendable (FollowerQueue<String>) async -> Void,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel, backlog: Int
    ) async throws {
        // A client that reads nothing would hold the writes below for ever: once it has
        // fallen behind, it has the grace to take what waits, then it is closed.
        let lines = FollowerQueue<String>(limit: backlog) {
            channel.eventLoop.scheduleTask(in: .seconds(Int64(ControlProtocol.fellBehindGraceSeconds))) {
                channel.close(promise: nil)
            }
        }
        let closed = channel.closeFuture
        // true: the exchange is over (every line written, or the client gone).
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await produce(lines)
                lines.finish()
                return false
            }
            group.addTask {
                for await line in lines.items {
                    try await outbound.write(ByteBuffer(string: line + "\n"))
                }
                if lines.fellBehind {
                    try await outbound.write(ByteBuffer(string: Self.line(.fellBehind(limit: backlog)) + "\n"))
                }
                return true
            }
            group.addTask {
                try await closed.get()
                return true
            }
            while let over = try await group.next(), !over {}
            lines.finish()
            group.cancelAll()
        }
    }

    /// The peer's pid, uid and gid from `SO_PEERCRED`; an unknown peer gets nobody's rights.
    static func credentials(of channel: any Channel) async -> PeerCredentials {
        let nobody = PeerCredentials(pid: 0, uid: UInt32.max - 1, gid: UInt32.max - 1)
        guard let provider = channel as? any SocketOptionProvider else { return nobody }
        let future: EventLoopFuture<PeerCred> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        guard let credentials = try? await future.get() else { return nobody }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }
}

/// `struct ucred` with the same layout, sendable across the event loop.
struct PeerCred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Closes a connection that sent nothing for the idle time-out.
final class IdleCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
