import Logging
import UtensilCatalog
import UtensilControlServer
import UtensilCore
import UtensilIngest

/// The journal entries of changes made through the control socket (and the web gallery,
/// which acts as the daemon's own user): one notice per change, naming the peer, with the
/// fields of `JournalField`.
struct ControlAudit: Sendable {
    let logger: Logger

    /// `message` about `utensil`, changed for `peer`.
    func changed(_ message: String, _ utensil: UtensilRecord, for peer: PeerCredentials) {
        var metadata = Self.fields(of: peer)
        metadata[.utensilID] = .string(utensil.id.uuidString)
        metadata[.utensilName] = .string(utensil.name)
        metadata[.utensilCategory] = .string(utensil.category ?? "")
        logger.notice("\(message) for \(peer)", metadata: metadata)
    }

    /// `message` about files rather than utensils (retry), done for `peer`.
    func filesChanged(_ message: String, for peer: PeerCredentials, level: Logger.Level = .notice) {
        logger.log(level: level, "\(message) for \(peer)", metadata: Self.fields(of: peer))
    }

    /// A change `peer` was not allowed to make.
    func refused(_ command: String, for peer: PeerCredentials) {
        logger.warning("Refused \(command) from \(peer): not root, utensild's user or in the socket's group",
                       metadata: Self.fields(of: peer))
    }

    private static func fields(of peer: PeerCredentials) -> Logger.Metadata {
        .journal([.peerUID: .stringConvertible(peer.uid), .peerPID: .stringConvertible(peer.pid)])
    }
}
