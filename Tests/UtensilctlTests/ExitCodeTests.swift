import Testing
import UtensilControlProtocol
@testable import utensilctl

@Suite struct ExitCodeTests {
    @Test func clientErrorsMapToTheContractsCodes() {
        #expect(ClientError.unreachable(socket: "/s", reason: "no such socket").exitCode == 69)
        #expect(ClientError.timedOut(socket: "/s", seconds: 30).exitCode == 69)
        #expect(ClientError.connectionLost(socket: "/s", reason: "reset").exitCode == 69)
        #expect(ClientError.socketPermissionDenied(socket: "/s").exitCode == 77)
        #expect(ClientError.socketPathTooLong(socket: "/s").exitCode == 64)
        #expect(ClientError.unreadableReply("?").exitCode == 1)
        #expect(ClientError.inconsistent("1 row without files").exitCode == 1)
    }

    @Test(arguments: ControlErrorCode.allCases)
    func errorRepliesMapToOneOr77(_ code: ControlErrorCode) {
        let exit = ClientError.failed(ControlError(code, "x")).exitCode
        #expect(exit == (code == .permissionDenied ? 77 : 1))
    }

    @Test func messagesAreOneLineAndSayWhatToDo() {
        let unreachable = ClientError.unreachable(socket: "/run/x.sock", reason: "no such socket").message
        #expect(unreachable.contains("/run/x.sock"))
        #expect(unreachable.contains("systemctl status utensild"))
        #expect(ClientError.socketPermissionDenied(socket: "/run/x.sock").message.contains("/run/x.sock"))
        let denied = ClientError.socketPermissionDenied(socket: "/run/x.sock", group: "utensil").message
        #expect(denied.contains("/run/x.sock") && denied.contains("group utensil"))
        let all: [ClientError] = [
            .unreachable(socket: "/s", reason: "r"), .socketPermissionDenied(socket: "/s"),
            .socketPermissionDenied(socket: "/s", group: "utensil"), .socketPathTooLong(socket: "/s"),
            .timedOut(socket: "/s", seconds: 1), .connectionLost(socket: "/s", reason: "r"), .unreadableReply("r"),
            .failed(ControlError(.notFound, "No utensil is called Spork.")), .inconsistent("r"),
        ]
        for error in all { #expect(!error.message.contains("\n")) }
    }
}
