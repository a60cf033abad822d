import Foundation
import Testing
import UtensilTestSupport

/// The gallery answers only to its own names (`web_hosts`), against the real daemon.
@Suite("web Host check against utensild", .serialized, .tags(.spawnsProcesses))
struct WebHostCheckTests {
    @Test func anotherHostGets421AndAWebHostsNameIsServed() throws {
        let (world, daemon, web, _) = try WebAccessTests.world(extra: ["--web-hosts", "photos.example.org"])
        defer { _ = daemon; world.remove() }
        for host in ["localhost", "localhost:8180", "127.0.0.1:80", "[::1]:8180", "photos.example.org", "Photos.Example.Org:443"] {
            let reply = try web.request("GET", "/api/v1/utensils", host: host)
            #expect(reply.status == 200, "Host: \(host) gave \(reply.status)")
            #expect(reply.text.contains("Spatula"))
        }
        for host in ["attacker.example", "attacker.example:8180", "photos.example.org.attacker.example", "localhost.evil", "[::2]"] {
            for path in ["/", "/api/v1/utensils", "/login"] {
                let reply = try web.request("GET", path, host: host)
                #expect(reply.status == 421, "Host: \(host) \(path) gave \(reply.status)")
                #expect(!reply.text.contains("Spatula"))
            }
        }
        let signIn = try web.request(
            "POST", "/login", host: "attacker.example", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data("name=alice&password=x".utf8))
        #expect(signIn.status == 421)
    }
}
