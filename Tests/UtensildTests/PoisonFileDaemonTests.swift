import Foundation
import Glibc
import Testing
import UtensilCatalogModel
import UtensilTestSupport

/// A poison file through the real daemon, restarted after each crash as systemd's
/// `Restart=on-failure` would: the crash is counted, the drop is quarantined as
/// `decoder-crash` after the second one, and the daemon then runs on. (The engine-level test
/// with `--oneshot` is `CrashSafetyTests.aDropThatCrashesTheDecoderTwiceIsQuarantined`.)
///
/// No real decoder crash is known, so the fault hook `UTENSIL_FAULT_DECODER_CRASH` raises
/// SIGSEGV inside the decoder crash guard, on the worker thread, as a real one would.
@Suite("Poison file under the daemon", .serialized, .tags(.spawnsProcesses))
struct PoisonFileDaemonTests {
    @Test func aPoisonFileCrashesTheDaemonTwiceThenIsQuarantinedAndTheDaemonRunsOn() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let photos = try TestImages.make([
            TestImages.jpeg(root + "/good", seed: 31), TestImages.jpeg(root + "/poison", seed: 32),
            TestImages.jpeg(root + "/after", seed: 33),
        ])
        try world.drop("Good spoon.jpg", photos[0])
        try world.drop("Poison.jpg", photos[1])
        let crashing = ["UTENSIL_FAULT_DECODER_CRASH": "Poison"]

        for attempt in 1...2 {
            // The crash may come before or after READY=1: wait for the process, not for READY.
            let daemon = try RunningDaemon(world: world, extra: ["--workers", "2"], environment: crashing, waitForReady: false)
            try daemon.waitUntil(seconds: 120, "crash \(attempt) while decoding Poison.jpg") { !daemon.process.isRunning }
            daemon.process.waitUntilExit()
            #expect(daemon.process.terminationReason == .uncaughtSignal && daemon.process.terminationStatus == SIGSEGV,
                    "start \(attempt) did not end in the decoder crash:\n\(daemon.log)")
            #expect(world.files(in: world.inbox).contains("Poison.jpg"), "after crash \(attempt) the drop must still be in the inbox")
        }

        // Third start, same environment: the drop is quarantined instead of decoded again.
        let daemon = try RunningDaemon(world: world, extra: ["--workers", "2"], environment: crashing)
        try daemon.waitUntil(seconds: 120, "Poison.jpg to be quarantined") {
            world.files(in: world.rejected).contains("Poison.jpg.error.json")
        }
        let sidecar = try world.sidecar(for: "Poison.jpg")
        #expect(sidecar["reason"] as? String == "decoder-crash")
        let message = try #require(sidecar["message"] as? String)
        #expect(message.hasSuffix(".") && message.contains("twice"))

        // It runs on: it answers, and ingests what comes next.
        try daemon.waitForCatalog("the good spoon") { $0.contains { $0.name == "Good spoon" } }
        try world.drop("After the poison.jpg", photos[2])
        try daemon.waitForCatalog("the photo dropped after the quarantine") { $0.contains { $0.name == "After the poison" } }
        #expect(daemon.process.isRunning)
        let socket = world.root.appendingPathComponent("control.sock").path
        let status = try UtensilctlEndToEndTests.ctl(["status", "--json"], socket: socket)
        #expect(status.json?["utensils"] as? Int == 2, "\(status.output)\(status.errors)")
        let rejected = try UtensilctlEndToEndTests.ctl(["rejected", "--json"], socket: socket)
        #expect(rejected.status == 0 && rejected.output.contains("decoder-crash"), "\(rejected.output)\(rejected.errors)")
        #expect(try daemon.terminate() == 0)

        let census = try InvariantChecker(world: world).verify(inputs: photos)
        #expect(census == .init(utensils: 2, rejections: 1, stillInInbox: 0))
    }

    /// A decode the daemon never comes back from (a decoder stuck in a huge picture), ended by
    /// `kill -9`, where no signal handler runs. The slot in `decoding.slots` survives the
    /// process; what it means is decided by what systemd said of the run (`ExecStopPost=`
    /// runs `utensild --record-stop` with `$SERVICE_RESULT`): an operator's `kill -9`
    /// (`signal`) is no fault of the drop, which is decoded again; after `oom-kill` the drop is
    /// counted as a decoder crash, and after the second it is quarantined instead of decoded
    /// forever.
    @Test func aDropBeingDecodedWhenTheOOMKillerEndsTheDaemonCountsAsADecoderCrash() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let photos = try TestImages.make([TestImages.jpeg(root + "/stuck", seed: 41), TestImages.jpeg(root + "/good", seed: 42)])
        try world.drop("Stuck.jpg", photos[0])
        let hanging = ["UTENSIL_FAULT_DECODER_HANG": "Stuck"]

        for (attempt, serviceResult) in ["signal", "oom-kill", "oom-kill"].enumerated() {
            let daemon = try RunningDaemon(world: world, extra: ["--workers", "1"], environment: hanging)
            try daemon.waitUntil(seconds: 120, "start \(attempt + 1) to decode Stuck.jpg") { daemon.log.contains("decoder hangs on Stuck.jpg") }
            daemon.kill()
            #expect(daemon.process.terminationReason == .uncaughtSignal && daemon.process.terminationStatus == SIGKILL)
            #expect(world.files(in: world.inbox).contains("Stuck.jpg"), "after kill \(attempt + 1) the drop must still be in the inbox")
            let recorded = try UtensildProcess.run(
                UtensildProcess.arguments(for: world, extra: ["--record-stop"]), environment: ["SERVICE_RESULT": serviceResult])
            #expect(recorded.status == 0, "\(recorded.errors)")
        }

        let daemon = try RunningDaemon(world: world, extra: ["--workers", "1"], environment: hanging)
        try daemon.waitUntil(seconds: 120, "Stuck.jpg to be quarantined") { world.files(in: world.rejected).contains("Stuck.jpg.error.json") }
        #expect(try world.sidecar(for: "Stuck.jpg")["reason"] as? String == "decoder-crash")
        #expect(!daemon.log.contains("decoder hangs on Stuck.jpg"), "the fourth start must not decode it again")
        try world.drop("Good.jpg", photos[1])
        try daemon.waitForCatalog("the photo dropped after the quarantine") { $0.contains { $0.name == "Good" } }
        #expect(try daemon.terminate() == 0)
        let census = try InvariantChecker(world: world).verify(inputs: photos)
        #expect(census == .init(utensils: 1, rejections: 1, stillInInbox: 0))
    }

    @Test func recordStopWithoutSystemdSaysWhatItIsFor() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let run = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--record-stop"]))
        #expect(run.status == 64 && run.errors.contains("ExecStopPost="), "\(run.errors)")
    }
}
