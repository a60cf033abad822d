import Foundation
import Glibc
import Synchronization
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilTestSupport

/// A member of the group planting things in `rejected/` while a burst runs and the daemon
/// restarts: folders, FIFOs and links named like temporaries and sidecars, sparse 1.2 GB
/// sidecars, names that are not UTF-8 — with `utensilctl rejected` asked all along. Every
/// drop still ends exactly once, every restart succeeds, nothing planted is removed or read
/// whole, and memory stays bounded. Sized like the kill -9 loop.
@Suite("Stress: planted files in rejected/", .serialized, .tags(.spawnsProcesses))
struct StressPlantedTests {
    @Test func plantingInRejectedDuringABurstDisturbsNothing() throws {
        let profile = StressProfile.current
        print(profile)
        let small = try stressCorpus.photos(.small, count: profile.killSmall)
        let world = try TestWorld()
        defer { world.remove() }
        let staging = world.root.appendingPathComponent("staging")
        var files = try Stress.stage(small, in: staging)
        var hashes = small.map(\.sha256)
        for index in 0..<profile.killJunk {
            let junk = Data("planted-burst junk \(index)".utf8)
            let url = staging.appendingPathComponent(String(format: "Junk %03d.jpg", index))
            try junk.write(to: url)
            files.append(url)
            hashes.append(sha256Hex(junk))
        }
        var random = SeededGenerator(seed: profile.seed)
        files.shuffle(using: &random)

        var daemon = try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"])
        let planter = Planter(world: world)
        let feeder = WaveFeeder(files: files, inbox: world.inbox, perWave: max(1, files.count / 40))
        var peakKiB = 0
        let restarts = max(2, profile.kills / 5)
        for _ in 0..<restarts {
            usleep(useconds_t(Double.random(in: 0.3...1.0, using: &random) * 1_000_000))  // Seeded timing, not a synchronisation.
            peakKiB = max(peakKiB, try ProcessMemory.of(daemon.process.processIdentifier).peakResidentKiB)
            let status = try daemon.terminate()
            // The log's own lines (not a backtrace's frames), where the reason is.
            let lines = daemon.log.split(separator: "\n").filter { !$0.hasPrefix(" ") }.suffix(40).joined(separator: "\n")
            #expect(status == 0, "utensild exited \(status) on SIGTERM:\n\(lines)")
            daemon = try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"])
        }
        feeder.finish()
        let catalog = try SQLiteCatalog(path: world.settings().catalogPath)
        try daemon.waitUntil(seconds: 120 + Double(files.count) * 0.3, "every drop to settle") {
            let junkRejected = world.files(in: world.rejected).filter { $0.hasPrefix("Junk ") && $0.hasSuffix(".jpg") }.count
            return (try? catalog.count()) == small.count && junkRejected == profile.killJunk && world.files(in: world.inbox).isEmpty
        }
        let planted = planter.stop()
        peakKiB = max(peakKiB, try ProcessMemory.of(daemon.process.processIdentifier).peakResidentKiB)
        #expect(try daemon.terminate() == 0)

        #expect(planter.listingFailures.isEmpty, "utensilctl rejected failed: \(planter.listingFailures.prefix(3))")
        #expect(planter.listings > 0)
        for name in planted {
            #expect(HostileEntries.lstatOf(world.rejected.path, name) != nil, "planted \(FileNameEscaping.escaped(name)) was removed")
        }
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
        #expect(peakKiB < 600 * 1024, "peak RSS \(peakKiB) KiB: a planted sidecar was read whole")
        for name in planted { Planter.remove(world, name) }
        let report = try InvariantChecker(world: world).examine(inputHashes: hashes, inbox: .mustBeEmpty)
        #expect(report.census == .init(utensils: small.count, rejections: profile.killJunk, stillInInbox: 0))
        StressProfile.report(
            "planted files",
            "\(planted.count) entries planted in rejected/ and \(planter.listings) `utensilctl rejected` during \(files.count) drops and \(restarts) restarts: "
                + "\(report.census.utensils) utensils, \(report.census.rejections) rejections, 0 lost, nothing planted removed; peak RSS \(peakKiB / 1024) MiB")
    }
}

/// Plants hostile entries in `rejected/` on a thread of its own, asking `utensilctl rejected`
/// after each, until stopped.
final class Planter: @unchecked Sendable {
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var names: [[UInt8]] = []
    private(set) var listings = 0
    private(set) var listingFailures: [String] = []

    init(world: TestWorld) {
        Thread { [self] in
            var index = 0
            while !stopped.load(ordering: .acquiring) {
                let made = Self.plant(index, in: world.rejected.path)
                lock.withLock { names += made }
                if let run = try? Utensilctl.run(["rejected", "--json"], socket: Stress.socket(world), timeout: 60) {
                    lock.withLock {
                        listings += 1
                        // The daemon may be between a stop and a start (exit 69).
                        if run.status != 0 && run.status != 69 { listingFailures.append("exit \(run.status): \(run.errors)") }
                    }
                }
                index += 1
                usleep(50_000)  // The pace of a person at a shell, not a synchronisation.
            }
            done.signal()
        }.start()
    }

    /// Stops planting; returns the names planted.
    func stop() -> [[UInt8]] {
        stopped.store(true, ordering: .releasing)
        done.wait()
        return lock.withLock { names }
    }

    /// One round of plantings; returns the names made.
    static func plant(_ index: Int, in folder: String) -> [[UInt8]] {
        func path(_ name: [UInt8]) -> [CChar] { HostileEntries.path(folder, name) }
        var made: [[UInt8]] = []
        func keep(_ name: String, _ result: Int32) { if result == 0 { made.append(Array(name.utf8)) } }
        keep(".tmp-planted-\(index)", mkdir(path(Array(".tmp-planted-\(index)".utf8)), 0o755))
        keep("Planted \(index).jpg.error.json", mkdir(path(Array("Planted \(index).jpg.error.json".utf8)), 0o755))
        keep("Pipe \(index).jpg.error.json", mkfifo(path(Array("Pipe \(index).jpg.error.json".utf8)), 0o644))
        keep(".tmp-link-\(index)", symlink("/etc/passwd", path(Array(".tmp-link-\(index)".utf8))))
        keep("Shadow \(index).jpg.error.json", symlink("/etc/shadow", path(Array("Shadow \(index).jpg.error.json".utf8))))
        if index % 10 == 0 {
            // A file beside a sparse 1.2 GB sidecar, and a name that is not UTF-8.
            let huge = "Huge \(index).jpg"
            let fd = open(path(Array(huge.utf8)), O_WRONLY | O_CREAT | O_EXCL, 0o644)
            if fd >= 0 {
                close(fd)
                made.append(Array(huge.utf8))
                let sidecar = Array((huge + RejectionSidecar.suffix).utf8)
                let sparse = open(path(sidecar), O_WRONLY | O_CREAT | O_EXCL, 0o644)
                if sparse >= 0 {
                    _ = ftruncate(sparse, 1_200_000_000)
                    close(sparse)
                    made.append(sidecar)
                }
            }
            let latin1 = Array("Caf".utf8) + [0xE9] + Array(" \(index).jpg".utf8)
            let other = open(path(latin1), O_WRONLY | O_CREAT | O_EXCL, 0o644)
            if other >= 0 {
                close(other)
                made.append(latin1)
            }
        }
        return made
    }

    static func remove(_ world: TestWorld, _ name: [UInt8]) {
        let path = HostileEntries.path(world.rejected.path, name)
        if rmdir(path) != 0 { unlink(path) }
    }
}
