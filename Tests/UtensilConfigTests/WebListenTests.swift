import Testing
@testable import UtensilConfig

@Suite struct WebListenTests {
    @Test(arguments: [
        ("", WebListen.off),
        ("127.0.0.1:8180", .tcp(host: "127.0.0.1", port: 8180)),
        ("0.0.0.0:80", .tcp(host: "0.0.0.0", port: 80)),
        ("localhost:8080", .tcp(host: "localhost", port: 8080)),
        ("[::1]:8180", .tcp(host: "::1", port: 8180)),
        ("unix:/run/utensild/web.sock", .unix(path: "/run/utensild/web.sock")),
        ("unix:/run//utensild/./web.sock", .unix(path: "/run/utensild/web.sock")),
    ])
    func validValuesParseAndRenderBack(text: String, expected: WebListen) throws {
        let parsed = try WebListen.parse(text)
        #expect(parsed == expected)
        #expect(try WebListen.parse(parsed.description) == expected)
    }

    @Test(arguments: [
        "localhost", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:80x", ":8180", "::1:8180",
        "[localhost]:80", "unix:relative.sock", "unix:", "host name:80", "127.0.0.1:８０",
    ])
    func invalidValuesAreRefusedWithAReason(text: String) {
        #expect(throws: SettingProblem.self) { try WebListen.parse(text) }
    }
}
