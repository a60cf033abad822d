import Glibc
import Testing
import UtensilControlProtocol
import UtensilControlServer
@testable import UtensilDaemon

/// Who may change utensils through the control socket (and so through the web gallery).
@Suite struct ChangePolicyTests {
    /// A group nobody here is in, standing for the socket's.
    let policy = ChangePolicy(socketGroup: 54321)
    let stranger = PeerCredentials(pid: 1, uid: 65534, gid: 65534)

    static let changing: [ControlRequest] = [
        .delete("id"), .delete("id", now: true), .rename("id", to: "New"), .retry(file: "a.jpg"), .retryAll,
        .setCategory("id", to: "Knives"), .setCategory("id", to: nil), .restore("id"), .rethumb(.missing),
        .categoryRename("Knifes", to: "Knives"), .categoryDelete("Misc"), .notACopy("id", "other"),
    ]
    static let reading: [ControlRequest] = [
        .status, .list(), .show("Spoon"), .rejected, .check, .events(), .categories, .trash, .hosts, .duplicates,
    ]
    /// The caller's own favorites: open to every peer, to signed-in web users only.
    static let personal: [ControlRequest] = [.favorite("id"), .unfavorite("id"), .list(favorites: true)]

    /// Only root and the daemon's own user: a backup writes every photo wherever it is told.
    static let administering: [ControlRequest] = [.backup(BackupDestination(path: "/var/lib/utensild/backup"))]

    @Test func everyCommandIsEitherChangingOrReadingOrPersonal() {
        let commands = Set((Self.changing + Self.reading + Self.personal + Self.administering).map(\.command))
        #expect(commands == Set(ControlCommand.allCases))
    }

    @Test(arguments: personal)
    func anyPeerButOnlyASignedInWebUserMayKeepFavorites(_ request: ControlRequest) {
        #expect(policy.refusal(of: request, from: .peer(stranger)) == nil)
        #expect(policy.refusal(of: request, from: Caller.web("alice")) == nil)
        #expect(policy.refusal(of: request, from: Caller.web(nil))?.code == .permissionDenied)
    }

    @Test(arguments: changing)
    func aWebVisitorMayNotChangeASignedInUserMay(_ request: ControlRequest) {
        #expect(policy.refusal(of: request, from: Caller.web(nil))?.code == .permissionDenied)
        #expect(policy.refusal(of: request, from: Caller.web("alice")) == nil)
    }

    @Test(arguments: changing)
    func aStrangerMayNotChange(_ request: ControlRequest) {
        let refusal = policy.refusal(of: request, from: stranger)
        #expect(refusal?.code == .permissionDenied)
        #expect(refusal?.message.contains("usermod -aG") == true)
    }

    @Test(arguments: reading)
    func anyoneMayRead(_ request: ControlRequest) {
        #expect(policy.refusal(of: request, from: stranger) == nil)
    }

    @Test(arguments: changing)
    func rootTheDaemonsUserAndTheSocketsGroupMayChange(_ request: ControlRequest) {
        #expect(policy.refusal(of: request, from: PeerCredentials(pid: 1, uid: 0, gid: 0)) == nil)
        #expect(policy.refusal(of: request, from: PeerCredentials(pid: 1, uid: geteuid(), gid: 65534)) == nil)
        #expect(policy.refusal(of: request, from: PeerCredentials(pid: 1, uid: 65534, gid: 54321)) == nil)
    }

    @Test(arguments: administering)
    func onlyRootAndTheDaemonsUserMayBackUp(_ request: ControlRequest) {
        #expect(policy.refusal(of: request, from: PeerCredentials(pid: 1, uid: 0, gid: 0)) == nil)
        #expect(policy.refusal(of: request, from: PeerCredentials(pid: 1, uid: geteuid(), gid: 65534)) == nil)
        let member = policy.refusal(of: request, from: PeerCredentials(pid: 1, uid: 65534, gid: 54321))
        #expect(member?.code == .permissionDenied)
        #expect(member?.message.contains("sudo") == true)
        #expect(policy.refusal(of: request, from: stranger)?.code == .permissionDenied)
    }
}
