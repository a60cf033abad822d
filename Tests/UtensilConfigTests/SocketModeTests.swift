import Testing
@testable import UtensilConfig

@Suite struct SocketModeTests {
    @Test(arguments: [
        ("socket_mode = \"0660\"", UInt32(0o660)),
        ("socket_mode = \"660\"", 0o660),
        ("socket_mode = \"0o660\"", 0o660),
        ("socket_mode = 0o660", 0o660),
        ("socket_mode = 660", 0o660),
        ("socket_mode=600", 0o600),
        ("\"socket_mode\" = 640 # octal digits", 0o640),
        ("socket_mode = 0x1b0", 0o660),
        ("socket_mode = 0b110_110_000", 0o660),
        ("socket_mode = 0", 0),
        ("socket_mode = 777", 0o777),
        ("socket_mode = 0o777\r\n", 0o777),
    ])
    func fileForms(toml: String, mode: UInt32) throws {
        let folder = try TemporaryFolder()
        #expect(try load(toml: toml, in: folder).socketMode == mode)
    }

    @Test(arguments: ["socket_mode = 680", "socket_mode = 1000", "socket_mode = -1", "socket_mode = 0o1000",
                      "socket_mode = \"rw-rw----\"", "socket_mode = \"0x1b0\"", "socket_mode = \"\""])
    func badFileForms(toml: String) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(toml: toml, in: folder))
        guard case .invalidValue(.socketMode, _, _, _) = error else { Issue.record("unexpected \(error)"); return }
    }

    @Test func environmentAndFlagFormsAreOctalText() throws {
        let folder = try TemporaryFolder()
        #expect(try load(environment: ["UTENSILD_SOCKET_MODE": "0640"], in: folder).socketMode == 0o640)
        #expect(try load(environment: ["UTENSILD_SOCKET_MODE": "0o600"], in: folder).socketMode == 0o600)
        #expect(try load(flags: [.socketMode: "660"], in: folder).socketMode == 0o660)
        #expect(try loadError(flags: [.socketMode: "8"], in: folder)?.key == .socketMode)
        #expect(try loadError(flags: [.socketMode: "01000"], in: folder)?.key == .socketMode)
    }

    @Test func theIntegerLiteralIsFoundOnlyWhenUnambiguous() {
        #expect(SocketMode.integerLiteral(in: "a = 1\n  socket_mode =  660  # x\n", value: 660) == "660")
        #expect(SocketMode.integerLiteral(in: "socket_mode_x = 660\n", value: 660) == nil)
        // Two different spellings of the same value (one could sit in a multi-line string): no guess.
        #expect(SocketMode.integerLiteral(in: "socket_mode = 432\nsocket_mode = 0o660\n", value: 432) == nil)
        #expect(throws: SettingProblem.self) { try SocketMode.fromInteger(432, literal: nil) }
    }
}
