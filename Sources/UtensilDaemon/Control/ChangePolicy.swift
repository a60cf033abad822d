import Glibc
import UtensilControlProtocol
import UtensilControlServer

/// Who may change utensils through the control socket: root, the daemon's own user, and
/// members of the socket's group; through the web gallery, a signed-in user. Reading is open
/// to every peer that can connect and to every visitor; a user's own favorites to the user.
struct ChangePolicy: Sendable {
    /// The group owning the control socket.
    let socketGroup: UInt32

    /// The refusal for `request` from `caller`, or nil when it may go ahead. A signed-in web
    /// user changes with the daemon's own rights; a visitor may only read.
    func refusal(of request: ControlRequest, from caller: Caller) -> ControlError? {
        switch caller {
        case .peer(let peer):
            return refusal(of: request, from: peer)
        case .web(.some):
            return nil
        case .web(nil):
            if Self.changes(request.command) { return ControlError(.permissionDenied, "Sign in to change utensils.") }
            if Self.personal(request) { return ControlError(.permissionDenied, "Sign in to mark and see your favorites.") }
            return nil
        }
    }

    /// The refusal for `request` from `peer`, or nil when it may go ahead.
    func refusal(of request: ControlRequest, from peer: PeerCredentials) -> ControlError? {
        if Self.administers(request.command) {
            return peer.uid == 0 || peer.uid == geteuid() ? nil : Self.refusedBackup
        }
        guard Self.changes(request.command), !mayChange(peer) else { return nil }
        return Self.refused
    }

    /// The commands only root and the daemon's own user may give (`ControlAccess.administers`):
    /// `backup` writes every photo and the catalog, as the daemon, wherever it is told.
    static func administers(_ command: ControlCommand) -> Bool {
        command.access == .administers
    }

    static let refusedBackup = ControlError(
        .permissionDenied,
        "A backup needs root or utensild's own user: it writes every photo and the catalog where you say; run it with sudo.")

    /// Requests about the caller's own favorites: open to every peer (each has a user), and
    /// to signed-in web users.
    static func personal(_ request: ControlRequest) -> Bool {
        if case .list(let options) = request { return options.favorites }
        return request.command.access == .personal
    }

    /// The commands that change utensils or files, rather than only read.
    static func changes(_ command: ControlCommand) -> Bool {
        command.access == .changes || command.access == .administers
    }

    static let refused = ControlError(
        .permissionDenied,
        "Changing utensils needs root or membership in the control socket's group; ask an administrator to add you (usermod -aG utensil $USER).")

    private func mayChange(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == geteuid() || peer.gid == socketGroup { return true }
        return Self.groups(ofUser: peer.uid, primary: peer.gid).contains(socketGroup)
    }

    /// The supplementary groups of a user, from the group database.
    private static func groups(ofUser uid: UInt32, primary: UInt32) -> [UInt32] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, let found = result,
              let name = found.pointee.pw_name
        else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primary, &groups, &count) >= 0 else { return [] }
        }
        return Array(groups.prefix(Int(count)))
    }
}
