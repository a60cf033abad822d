import Testing
@testable import UtensilConfig

@Suite struct WebHostsTests {
    @Test func theDefaultIsNoExtraName() throws {
        let folder = try TemporaryFolder()
        #expect(try load(in: folder).webHosts == [])
        #expect(UtensilConfiguration.defaults.renderedValue(of: .webHosts) == "[]")
    }

    @Test func anArrayInTheFileAndAListInTheEnvironmentOrAFlag() throws {
        let folder = try TemporaryFolder()
        let file = try load(toml: "web_hosts = [\"Photos.Example.org\", \"192.0.2.7\", \"[2001:DB8::1]\"]", in: folder)
        #expect(file.webHosts == ["photos.example.org", "192.0.2.7", "[2001:db8::1]"])
        #expect(try load(toml: file.renderTOML(), in: folder) == file)
        let environment = try load(environment: ["UTENSILD_WEB_HOSTS": "a.example, b.example"], in: folder)
        #expect(environment.webHosts == ["a.example", "b.example"])
        #expect(try load(flags: [.webHosts: ""], in: folder).webHosts == [])
    }

    @Test(arguments: [
        "photos.example.org:443", "http://photos.example.org", "photos example", "-bad.example", "a..example",
        "[::1", "[localhost]", "", "fotos.bäckerei.de",
    ])
    func aNameThatIsNotAHostIsRefusedNamingTheKey(name: String) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(toml: "web_hosts = [\(TOMLText.quoted(name))]", in: folder))
        guard case .invalidValue(.webHosts, _, _, _) = error else { Issue.record("unexpected \(error)"); return }
        #expect(error.description.contains("web_hosts"))
    }

    @Test func anArrayOfOtherThingsIsTheWrongType() throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(toml: "web_hosts = [1, 2]", in: folder))
        guard case .wrongType(.webHosts, _, _, "an array") = error else { Issue.record("unexpected \(error)"); return }
    }
}
