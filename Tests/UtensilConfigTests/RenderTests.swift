import Testing
@testable import UtensilConfig

@Suite struct RenderTests {
    @Test func defaultsRoundTrip() throws {
        let folder = try TemporaryFolder()
        let toml = UtensilConfiguration.defaults.renderTOML()
        #expect(try load(toml: toml, in: folder) == .defaults)
        for key in ConfigKey.allCases {
            let lines = toml.split(separator: "\n").filter { $0.hasPrefix(key.rawValue + " = ") }
            #expect(lines.count == 1, "\(key)")
        }
        #expect(UtensilConfiguration.defaults.renderedValue(of: .socketMode) == "\"0660\"")
        #expect(UtensilConfiguration.defaults.renderedValue(of: .settleSeconds) == "2.0")
    }

    @Test func everyKeyChangedRoundTrips() throws {
        let folder = try TemporaryFolder()
        let config = UtensilConfiguration(
            inbox: "/srv/ütensils/in \"box\" \\ 🥄", rejected: "/srv/failed\tdrops", stateDir: "/var/lib/ü tensild",
            controlSocket: "/run/u'tensild/c.sock", socketMode: 0o7, workers: 256, thumbnailSize: 4096,
            thumbnailQuality: 1, maxFileBytes: Int.max, maxPixels: 1, memoryBudget: 16 << 20, duplicateNames: .allow, duplicateContent: .allow,
            nearDuplicates: .off, trashDays: 0.5,
            settleSeconds: 0.1, watch: .poll, rescanSeconds: 1e-3, logLevel: .critical, logFormat: .json,
            webListen: .unix(path: "/run/ü web.sock"), webUsersFile: "/etc/ü/web users",
            webHosts: ["photos.example.org", "[::2]"], onIngest: "/bin/true", onReject: "/usr/bin/env",
            hookTimeoutSeconds: 0.25, hostName: "kitchen-1.example",
            catalog: .postgres(PostgresURL(user: "ü ser", server: .unixSocket(directory: "/run/pg sql&x"), port: 6543, database: "db/1")),
            catalogPasswordFile: "/etc/passwd", storage: .s3(bucket: "utensils", prefix: "site/ü photos"),
            storageEndpoint: "http://127.0.0.1:8333", storageRegion: "eu-west-3", storageCredentialsFile: "/etc/hosts")
        // A tab cannot be typed into a path key: control characters are refused, so drop it for the round trip.
        var typable = config
        typable.rejected = "/srv/failed drops"
        #expect(try load(toml: typable.renderTOML(), in: folder) == typable)
        #expect(typable.changedKeys(comparedTo: .defaults) == ConfigKey.allCases)
        #expect(try loadError(toml: config.renderTOML(), in: folder)?.key == .rejected)
    }

    @Test(arguments: [UInt32(0), 0o7, 0o600, 0o644, 0o660, 0o777])
    func socketModesRoundTrip(mode: UInt32) throws {
        let folder = try TemporaryFolder()
        var config = UtensilConfiguration.defaults
        config.socketMode = mode
        #expect(try load(toml: config.renderTOML(), in: folder).socketMode == mode)
    }
}
