import Testing
@testable import UtensilConfig

/// `host_name`: 1 to 63 of A-Z a-z 0-9 . -, or "" for the machine's name.
@Suite struct HostNameTests {
    @Test func validNamesAreKeptAndEmptyMeansTheMachines() throws {
        let folder = try TemporaryFolder()
        #expect(try load(flags: [.hostName: "Kitchen-1.example"], in: folder).effectiveHostName == "Kitchen-1.example")
        let machine = try load(in: folder).effectiveHostName
        #expect(!machine.isEmpty && machine.count <= 63)
        #expect(try load(flags: [.hostName: String(repeating: "a", count: 63)], in: folder).hostName.count == 63)
    }

    @Test(arguments: ["kitchen_1", "küche", "a b", String(repeating: "a", count: 64), "host/1"])
    func otherNamesAreRefusedNamingTheKey(name: String) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(flags: [.hostName: name], in: folder))
        #expect(error.key == .hostName)
        #expect(error.description.contains("A-Z a-z 0-9 . -"))
    }

    /// The name is this host's folder in `state_dir/staging/`: `.` and `..` would be none.
    @Test(arguments: [".", "..", "..."])
    func aNameOfDotsAloneIsRefused(name: String) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(flags: [.hostName: name], in: folder))
        #expect(error.key == .hostName)
        #expect(error.description.contains("only of dots"))
    }

    @Test func aMachineNameOutsideTheRulesIsMadeToFit() {
        #expect(HostName.fitting("kitchen_1") == "kitchen-1")
        #expect(HostName.fitting(String(repeating: "x", count: 80)).count == 63)
        #expect(HostName.fitting("") == "localhost")
        #expect(HostName.fitting("..") == "localhost")
    }
}
