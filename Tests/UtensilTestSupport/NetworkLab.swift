import Foundation
import Glibc

/// Hosts of their own for a test: each a network namespace joined to this one by a virtual
/// link (a veth pair), so that a program started in it (``launcher(for:)``) reaches this
/// namespace only over that link, as another machine on the network would.
///
/// Host `i` has the address ``Host/address`` (`10.231.N.4i+2/30`, `eth0` inside its
/// namespace, with its own loopback); this namespace's end of its link has
/// ``Host/gateway`` (`10.231.N.4i+1`), which is where a server here (PostgreSQL started with
/// ``gateways`` as extra listen addresses) is reached from that host. Each host routes the
/// whole `10.231.N.0/24` over its link, so a server here listening on one gateway only (a
/// SeaweedFS, which binds one address) is reached from every host. `N` is drawn at random
/// so that labs of tests running side by side do not collide. The namespaces share the file
/// system with the test (`ip netns exec` does not change it): a folder or a Unix socket of the
/// test is the same for every host, as storage every host mounts is.
///
/// Needs root and `ip` (iproute2); ``remove()`` deletes the namespaces and with them the links
/// (also done when the last reference goes).
public final class NetworkLab: Sendable {
    /// One host of the lab.
    public struct Host: Sendable, CustomStringConvertible {
        /// The network namespace's name (`ip netns exec NAME`).
        public let namespace: String
        /// The host's own address, on its `eth0`.
        public let address: String
        /// This namespace's end of the host's link: where the host reaches the test's servers.
        public let gateway: String
        /// The name of this namespace's end of the link.
        let link: String

        public var description: String { "\(namespace) (\(address))" }
    }

    public static let ip = "/usr/sbin/ip"

    public let hosts: [Host]

    /// The addresses on this namespace's side of every link, for a server's listen addresses.
    public var gateways: [String] { hosts.map(\.gateway) }
    /// The network every host's link is in, for a server's access rules (`10.231.N.0/24`).
    public let network: String

    /// Makes `count` hosts (at most 63), each in a network namespace of its own with its link up.
    public init(hosts count: Int) throws {
        precondition((1...63).contains(count), "a lab has 1 to 63 hosts")
        guard getuid() == 0 else { throw TestFailure("network namespaces need root: run the tests as root (CI does)") }
        guard FileManager.default.isExecutableFile(atPath: Self.ip) else {
            throw TestFailure("\(Self.ip) is missing: apt-get install iproute2 (make unit-test installs it)")
        }
        let tag = String(UInt32.random(in: 0...0xFFFFFF), radix: 16)
        // Labs of test processes running side by side draw their subnets under one lock, each
        // a subnet no address on this machine is in yet.
        let (subnet, hosts) = try MachineLock.holding("network-lab") {
            let subnet = try Self.unusedSubnet()
            let hosts = (0..<count).map { index in
                Host(
                    namespace: "utensild-lab-\(tag)-\(index)",
                    address: "10.231.\(subnet).\(4 * index + 2)",
                    gateway: "10.231.\(subnet).\(4 * index + 1)",
                    link: "ul\(tag)h\(index)")
            }
            do {
                for host in hosts { try Self.make(host, network: "10.231.\(subnet).0/24") }
            } catch {
                Self.remove(hosts)
                throw error
            }
            return (subnet, hosts)
        }
        self.network = "10.231.\(subnet).0/24"
        self.hosts = hosts
    }

    deinit { remove() }

    /// The launcher that runs a program in `host`'s namespace (for ``UtensildProcess`` and
    /// ``RunningDaemon``): `ip netns exec NAME`, which then becomes the program itself, so
    /// the process it started has the program's pid.
    public func launcher(for host: Host) -> [String] {
        [Self.ip, "netns", "exec", host.namespace]
    }

    /// Deletes every host's namespace (their links go with them). Safe to call twice.
    public func remove() { Self.remove(hosts) }

    private static func remove(_ hosts: [Host]) {
        for host in hosts {
            _ = try? run([ip, "netns", "delete", host.namespace])
        }
    }

    /// Runs `argv` in `host`'s namespace to completion; its status and both output streams.
    public func run(in host: Host, _ argv: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        try Self.run(launcher(for: host) + argv, environment: environment)
    }

    // MARK: Setting up

    /// A third octet `N` such that no address of this machine's namespace is in 10.231.N.0/24.
    private static func unusedSubnet() throws -> Int {
        let listing = try run([ip, "-4", "-o", "addr", "show"])
        guard listing.status == 0 else { throw TestFailure("ip -4 -o addr show failed (\(listing.status)): \(listing.output)") }
        let used = Set(listing.output.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "inet 10.231.") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        })
        guard let subnet = (0...255).filter({ !used.contains($0) }).randomElement() else {
            throw TestFailure("every subnet of 10.231.0.0/16 is in use: remove the namespaces left behind (ip netns list)")
        }
        return subnet
    }

    private static func make(_ host: Host, network: String) throws {
        let steps: [[String]] = [
            ["netns", "add", host.namespace],
            ["link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns", host.namespace],
            ["addr", "add", host.gateway + "/30", "dev", host.link],
            ["link", "set", host.link, "up"],
            ["-n", host.namespace, "addr", "add", host.address + "/30", "dev", "eth0"],
            ["-n", host.namespace, "link", "set", "eth0", "up"],
            ["-n", host.namespace, "link", "set", "lo", "up"],
            ["-n", host.namespace, "route", "add", network, "via", host.gateway],
        ]
        for step in steps {
            let result = try run([ip] + step)
            guard result.status == 0 else {
                throw TestFailure("ip \(step.joined(separator: " ")) failed (\(result.status)): \(result.output)")
            }
        }
    }

    private static func run(_ argv: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
