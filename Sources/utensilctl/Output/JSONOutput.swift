import Foundation
import UtensilControlProtocol

/// `--json`: the reply's payload as one JSON document on one line, encoded exactly as the
/// wire encodes it (timestamps with milliseconds, keys sorted, `null`s kept).
enum JSONOutput {
    static func print(_ value: some Encodable) throws(ClientError) {
        let line: Data
        do {
            line = try LineFraming.encode(value)
        } catch {
            throw .unreadableReply("it could not be written as JSON: \(error)")
        }
        StandardStreams.out(String(decoding: line.dropLast(), as: UTF8.self))
    }
}
