import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import UtensilControlProtocol

/// `GET /api/v1/events`: the daemon's event stream as server-sent events, one
/// `event: ingested|rejected` with the `EventInfo` JSON (as `utensilctl events --json`)
/// each, and a comment every 15 seconds so that proxies keep the connection and a gone
/// browser is noticed.
///
/// Bounded: at most ``backlog`` messages wait for a reader that does not read. One more and
/// the reader has fallen behind: it is sent what waits and an `event: fell-behind` saying
/// so, then the stream ends; a reader that does not take even that within
/// ``fellBehindGrace`` is disconnected. A browser's `EventSource` reconnects by itself.
struct EventStream: Sendable {
    static let keepAlive = Duration.seconds(15)
    /// Messages (events and keep-alive comments) that may wait for one reader.
    static let backlog = 256
    static let fellBehindGrace = TimeAmount.seconds(10)

    /// The events, from the daemon's own bounded queue for this reader.
    let events: FollowerQueue<EventInfo>
    /// The reader's connection, closed when it fell behind and takes nothing more.
    let connection: any Channel
    /// The stream's slot (``EventStreamSlots``), held until the body ends.
    let ticket: EventStreamSlots.Ticket

    func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let (events, connection, ticket) = (events, connection, ticket)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let messages = FollowerQueue<String>(limit: Self.backlog) {
                connection.eventLoop.scheduleTask(in: Self.fellBehindGrace) { connection.close(promise: nil) }
            }
            // A page that was left closes its side; the stream ends then, not at its next write.
            PeerGone.gone(of: connection).whenSuccess {
                messages.finish()
                connection.close(promise: nil)
            }
            try await writer.write(ByteBuffer(string: ": utensild events\nretry: 2000\n\n"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in events.items {
                        guard messages.send(Self.message(event)) else { return }
                    }
                    if events.fellBehind { _ = messages.send(Self.fellBehind) }
                    messages.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: Self.keepAlive)
                        messages.send(": keep-alive\n\n")
                    }
                }
                for await message in messages.items { try await writer.write(ByteBuffer(string: message)) }
                if messages.fellBehind { try await writer.write(ByteBuffer(string: Self.fellBehind)) }
                group.cancelAll()
            }
            try await writer.finish(nil)
            withExtendedLifetime(ticket) {}  // The slot is held until the stream ends.
        })
    }

    static func message(_ event: EventInfo) -> String {
        let json = (try? LineFraming.encode(event)).map { String(decoding: $0.dropLast(), as: UTF8.self) } ?? "{}"
        return "event: \(event.kind.rawValue)\ndata: \(json)\n\n"
    }

    /// The last message to a reader that fell ``backlog`` messages behind.
    static let fellBehind: String = {
        let error = ControlError(
            .busy,
            "This page fell \(backlog) events behind and its event stream was closed so that it cannot slow utensild down; reload the page to see what happened meanwhile.")
        let json = (try? LineFraming.encode(error)).map { String(decoding: $0.dropLast(), as: UTF8.self) } ?? "{}"
        return "event: fell-behind\ndata: \(json)\n\n"
    }()
}
