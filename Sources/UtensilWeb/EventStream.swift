import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import UtensilControlProtocol

/// `GET /api/v1/events`: the daemon's event stream as server-sent events, one
/// `event: ingested|rejected|rethumb|category` with the `EventInfo` JSON (as `utensilctl
/// events --json`) each, its `seq` as the message's `id`, and a comment every 15 seconds so
/// that proxies keep the connection and a gone browser is noticed.
///
/// A reconnecting browser sends the last `id` it saw as `Last-Event-ID` (or a page passes
/// `?since=SEQ`): the events after it that the catalog keeps come first. When they are no
/// longer kept, an `event: fell-behind` says so and the stream ends.
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

    /// The events, from the daemon's own bounded queue for this reader, after those missed.
    let follower: EventFollower
    /// The `seq` after which the reader wants the events, or nil for only new ones.
    let since: Int64?
    /// The reader's connection, closed when it fell behind and takes nothing more.
    let connection: any Channel
    /// The stream's slot (``EventStreamSlots``), held until the body ends.
    let ticket: EventStreamSlots.Ticket

    func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let (follower, since, connection, ticket) = (follower, since, connection, ticket)
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
                    let end = await follower.run(since: since, room: { await messages.waitForRoom() }) { event in
                        messages.send(Self.message(event))
                    }
                    if case .fellBehind = end {
                        _ = messages.send(Self.fellBehind)
                    } else if let problem = ControlError.followEnded(end) {
                        _ = messages.send(Self.ended(problem))
                    }
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
        let json = LineFraming.text(event) ?? "{}"
        let id = event.seq.map { "id: \($0)\n" } ?? ""
        return "event: \(event.kind.rawValue)\n\(id)data: \(json)\n\n"
    }

    /// Where a reader resumes: `Last-Event-ID` (sent by a reconnecting `EventSource`), else
    /// the query's `since`; nil (only new events) when neither is a `seq`.
    static func resumePoint(_ request: Request) -> Int64? {
        if let header = request.headers[HTTPField.Name("Last-Event-ID")!], let seq = Int64(header), seq >= 0 {
            return seq
        }
        if let query = request.uri.queryParameters.get("since"), let seq = Int64(query), seq >= 0 { return seq }
        return nil
    }

    /// The last message to a reader that cannot go on (it fell behind, or its replay could not
    /// be made): the problem, as `event: fell-behind`.
    static func ended(_ problem: ControlError) -> String {
        let json = LineFraming.text(problem) ?? "{}"
        return "event: fell-behind\ndata: \(json)\n\n"
    }

    /// The last message to a reader that fell ``backlog`` messages behind.
    static let fellBehind = ended(ControlError(
        .busy,
        "This page fell \(backlog) events behind and its event stream was closed so that it cannot slow utensild down; reload the page to see what happened meanwhile."))
}
