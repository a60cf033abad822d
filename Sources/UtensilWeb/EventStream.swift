import Foundation
import HTTPTypes
import Hummingbird
import UtensilControlProtocol

/// `GET /api/v1/events`: the daemon's event stream as server-sent events, one
/// `event: ingested|rejected` with the `EventInfo` JSON (as `utensilctl events --json`)
/// each, and a comment every 15 seconds so that proxies keep the connection and a gone
/// browser is noticed.
struct EventStream: Sendable {
    static let keepAlive = Duration.seconds(15)

    let events: AsyncStream<EventInfo>

    func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let chunks = Self.chunks(events)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": utensild events\nretry: 2000\n\n"))
            for await chunk in chunks { try await writer.write(ByteBuffer(string: chunk)) }
            try await writer.finish(nil)
        })
    }

    /// One SSE message per event, and keep-alive comments between them.
    static func chunks(_ events: AsyncStream<EventInfo>) -> AsyncStream<String> {
        AsyncStream { continuation in
            let forward = Task {
                for await event in events { continuation.yield(message(event)) }
                continuation.finish()
            }
            let keepAlive = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.keepAlive)
                    continuation.yield(": keep-alive\n\n")
                }
            }
            continuation.onTermination = { _ in
                forward.cancel()
                keepAlive.cancel()
            }
        }
    }

    static func message(_ event: EventInfo) -> String {
        let json = (try? LineFraming.encode(event)).map { String(decoding: $0.dropLast(), as: UTF8.self) } ?? "{}"
        return "event: \(event.kind.rawValue)\ndata: \(json)\n\n"
    }
}
