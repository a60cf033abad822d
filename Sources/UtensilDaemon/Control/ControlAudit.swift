import Logging
import UtensilCatalogModel
import UtensilCore
import UtensilStore

/// The journal entries of changes made through the control socket and the web gallery: one
/// notice per change, naming who it was made for (``Caller``) in the message and in the fields
/// of `JournalField`: `CHANGED_BY` (the user name, whichever door), `CHANGED_VIA`, and for a
/// control-socket peer `PEER_UID` and `PEER_PID`.
struct ControlAudit: Sendable {
    let logger: Logger

    /// `message` about `utensil`, changed for `caller`.
    func changed(_ message: String, _ utensil: UtensilRecord, for caller: Caller) {
        var metadata = Self.fields(of: caller)
        metadata[.utensilID] = .string(utensil.id.uuidString)
        metadata[.utensilName] = .string(utensil.name)
        metadata[.utensilCategory] = .string(utensil.category ?? "")
        logger.notice("\(message) for \(caller)", metadata: metadata)
    }

    /// `message` about files or a whole category rather than one utensil, done for `caller`.
    func filesChanged(_ message: String, for caller: Caller, level: Logger.Level = .notice) {
        logger.log(level: level, "\(message) for \(caller)", metadata: Self.fields(of: caller))
    }

    /// A change `caller` was not allowed to make.
    func refused(_ command: String, for caller: Caller) {
        let who = if case .peer = caller { "not root, utensild's user or in the socket's group" } else { "not signed in" }
        logger.warning("Refused \(command) from \(caller): \(who)", metadata: Self.fields(of: caller))
    }

    private static func fields(of caller: Caller) -> Logger.Metadata {
        switch caller {
        case .peer(let peer):
            .journal([
                .peerUID: .stringConvertible(peer.uid), .peerPID: .stringConvertible(peer.pid),
                .changedBy: .string(UserName.of(uid: peer.uid)), .changedVia: "control-socket",
            ])
        case .web(let user):
            .journal([.changedBy: .string(user ?? ""), .changedVia: "web"])
        }
    }
}
