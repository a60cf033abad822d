import UtensilControlServer
import UtensilStore

/// Who a request is made for: whose favorites it reads and changes, whom the journal names
/// for a change, and what ``ChangePolicy`` allows. A user is a name: the Unix user of a
/// control-socket peer and the gallery's web user of the same name are one person.
enum Caller: Sendable, Equatable, CustomStringConvertible {
    /// A peer of the control socket, as the kernel names it (`SO_PEERCRED`).
    case peer(PeerCredentials)
    /// A request through the web gallery: the signed-in user, or nil for a visitor.
    case web(String?)

    /// The user's name: the peer's Unix user name (its uid in decimal when it has no passwd
    /// entry, as `addedBy` records it), the signed-in web user; nil for a web visitor.
    var userName: String? {
        switch self {
        case .peer(let peer): UserName.of(uid: peer.uid)
        case .web(let user): user
        }
    }

    /// How the journal's message names the caller: `alice (uid 1000 pid 42)`, `web user alice`.
    var description: String {
        switch self {
        case .peer(let peer): "\(UserName.of(uid: peer.uid)) (\(peer))"
        case .web(let user?): "web user \(user)"
        case .web(nil): "a web visitor"
        }
    }
}
