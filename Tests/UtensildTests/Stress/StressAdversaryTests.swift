import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilTestSupport

/// A group member working against the daemon while a burst runs: sub-folders swapped for
/// symbolic links to a folder outside while their photos wait, writers that rest longer than
/// `settle_seconds` holding their half-written photos open, and drops rewritten in place
/// (as `cp` onto the same name does) at random moments of their ingest. Nothing behind a
/// link is read, moved or deleted; every photo of the burst and every paused writer's whole
/// photo is one utensil; every rewritten drop's last bytes are exactly one utensil or
/// rejection (its first bytes at most one); each link is rejected once, as itself.
@Suite("Stress: adversary", .serialized, .tags(.spawnsProcesses))
struct StressAdversaryTests {
    @Test func foldersSwappedForLinksAndDropsRewrittenInPlaceDuringABurst() throws {
        let profile = StressProfile.current
        print(profile)
        let rounds = profile.adversaryRounds
        let photos = try stressCorpus.photos(.small, count: profile.adversaryBurst + 4 * rounds + 1)
        let burst = Array(photos.prefix(profile.adversaryBurst))
        let waiting = Array(photos.dropFirst(burst.count).prefix(rounds))
        let firsts = Array(photos.dropFirst(burst.count + rounds).prefix(rounds))
        let lasts = Array(photos.dropFirst(burst.count + 2 * rounds).prefix(rounds))
        let paused = Array(photos.dropFirst(burst.count + 3 * rounds).prefix(rounds))
        let world = try TestWorld()
        defer { world.remove() }
        let canary = try OutsideCanary(in: world.root, files: ["Waiting.jpg": try Data(contentsOf: photos.last!.url)])
        let daemon = try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"])
        let began = Date()

        let staged = try Stress.stage(burst, in: world.root.appendingPathComponent("staging"))
        try Stress.moveIn(staged, to: world.inbox)
        var generator = SeededGenerator(seed: profile.seed)
        // Writers that start their photos during the burst, write half, and rest holding them
        // open: 1 to 2 s (five to ten times settle_seconds), or as long as the swaps below take.
        // They finish after the swaps.
        let writers = try paused.enumerated().map { index, photo in
            try PausedWriter(world.inbox.appendingPathComponent("Paused \(index).jpg"), bytes: try Data(contentsOf: photo.url))
        }
        let pausedSince = Date()
        let away = world.root.appendingPathComponent("swapped-away")
        try FileManager.default.createDirectory(at: away, withIntermediateDirectories: true)
        for round in 0..<rounds {
            // A folder whose photo waits, swapped for a link to the canary's folder.
            let folder = world.inbox.appendingPathComponent("Swap \(round)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try FileManager.default.copyItem(at: waiting[round].url, to: folder.appendingPathComponent("Waiting.jpg"))
            // The adversary's timing, not a synchronisation: anywhere within the settle time.
            usleep(useconds_t.random(in: 0...250_000, using: &generator))
            try FileManager.default.moveItem(at: folder, to: away.appendingPathComponent("Swap \(round)"))
            guard symlink(canary.folder.path, folder.path) == 0 else { throw TestFailure("symlink: \(errno)") }
        }

        // The writers' rest (the adversary's timing, not a synchronisation), then the rest of each photo.
        let rest = Double.random(in: 1...2, using: &generator) - Date().timeIntervalSince(pausedSince)
        if rest > 0 { usleep(useconds_t(rest * 1_000_000)) }
        for writer in writers { try writer.finish() }

        // Drops rewritten in place while they are being ingested: each is rewritten as soon as
        // `status` shows an ingest in flight once the burst is done (or just before, or after).
        try Self.waitUntilIdle(world, daemon: daemon, seconds: 120 + Double(burst.count) * 0.5)
        for round in 0..<rounds {
            // (A copy, renamed in: the corpus's own files are never written.)
            let drop = world.inbox.appendingPathComponent("Rewritten \(round).jpg")
            let copy = world.root.appendingPathComponent("copy-\(round).jpg")
            try FileManager.default.copyItem(at: firsts[round].url, to: copy)
            try FileManager.default.moveItem(at: copy, to: drop)
            let giveUp = Date().addingTimeInterval(5)
            while Date() < giveUp, (try? Stress.status(world))?["inFlight"] as? Int ?? 0 == 0 {
                usleep(2_000)  // Polling with a deadline: the adversary's timing.
            }
            try Self.rewriteInPlace(drop, with: try Data(contentsOf: lasts[round].url))
        }

        try Self.waitUntilIdle(world, daemon: daemon, seconds: 120)
        let seconds = Date().timeIntervalSince(began)
        #expect(try daemon.terminate() == 0)

        canary.verifyUntouched()
        let emptyLink = sha256Hex(Data())  // A rejected link reads as nothing.
        let report = try InvariantChecker(world: world).examine(
            inputHashes: burst.map(\.sha256) + lasts.map(\.sha256) + paused.map(\.sha256) + Array(repeating: emptyLink, count: rounds),
            atMostOnce: firsts.map(\.sha256) + waiting.map(\.sha256), inbox: .mustBeEmpty)
        #expect(report.rejectionReasons["not-a-regular-file"] == rounds)
        // A paused photo taken half-written would be rejected (and its writer then finish it in
        // rejected/): each must be a utensil.
        let committed = Set(try SQLiteCatalog(path: world.settings().catalogPath).all().map(\.sha256))
        #expect(paused.allSatisfy { committed.contains($0.sha256) }, "a paused writer's photo is not a utensil")
        #expect(report.rejectionReasons["corrupt-image"] == nil)
        let refused = daemon.log.components(separatedBy: "Left Swap ").count - 1
        StressProfile.report(
            "adversary",
            "\(burst.count) photos with \(rounds) folders swapped for links, \(rounds) writers resting past the settle time and \(rounds) drops rewritten in place, settled in \(Int(seconds)) s: "
                + "\(report.census.utensils) utensils, \(report.census.rejections) rejections (\(report.rejectionReasons.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))), "
                + "\(refused) waiting photos refused behind links, nothing outside touched, 0 lost, 0 twice")
    }

    /// Polls (with a deadline) until nothing is left in the inbox and nothing is queued or in flight.
    static func waitUntilIdle(_ world: TestWorld, daemon: RunningDaemon, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let status = try? Stress.status(world)
            let idle = (status?["queued"] as? Int) == 0 && (status?["inFlight"] as? Int) == 0
            if idle && Stress.inboxCount(world) == 0 { return }
            guard Date() < deadline, daemon.process.isRunning else {
                throw TestFailure("the adversary's drops did not settle: \(world.files(in: world.inbox).prefix(5))\n\(daemon.log.suffix(4000))")
            }
            usleep(200_000)  // Polling with a deadline.
        }
    }

    /// A writer that has written half a photo into the inbox and holds it open.
    struct PausedWriter {
        let url: URL
        let fd: Int32
        let rest: Data

        init(_ url: URL, bytes: Data) throws {
            fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw TestFailure("create \(url.path): \(errno)") }
            self.url = url
            let half = bytes.count / 2
            rest = bytes.suffix(from: half)
            guard HostileEntries.writeAll(fd, bytes.prefix(half)) else { throw TestFailure("write \(url.path): \(errno)") }
        }

        /// Writes the rest and closes.
        func finish() throws {
            defer { close(fd) }
            guard HostileEntries.writeAll(fd, rest) else { throw TestFailure("write \(url.path): \(errno)") }
        }
    }

    /// As `cp` onto an existing name does: the same inode, truncated and written again (or a
    /// new file, if the daemon has already taken the first).
    static func rewriteInPlace(_ url: URL, with bytes: Data) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw TestFailure("open \(url.path): \(errno)") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("write \(url.path): \(errno)") }
    }
}
