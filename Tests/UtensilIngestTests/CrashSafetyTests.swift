import Foundation
import Glibc
import Testing
import UtensilStore
import UtensilTestSupport

/// `kill -9` at every step of an ingest and of a rejection, then a restart: every drop ends up
/// exactly once as a utensil or a rejection, and no file lacks its row.
@Suite("Crash safety", .serialized, .tags(.spawnsProcesses))
struct CrashSafetyTests {
    /// Three good photos and one broken file, so that both the ingest and the rejection paths run.
    static func populate(_ world: TestWorld) throws -> [Data] {
        let root = world.root.path
        var images = try TestImages.make([
            TestImages.jpeg(root + "/a", width: 800, height: 600, seed: 11),
            TestImages.png(root + "/b", seed: 12),
            TestImages.jpeg(root + "/c", width: 600, height: 800, seed: 13),
        ])
        images.append(Data("definitely not a photo".utf8))
        try world.drop("Fork.jpg", images[0])
        try world.drop("Knife.png", images[1])
        try world.drop("Sub/Whisk.jpg", images[2])
        try world.drop("Broken.jpg", images[3])
        return images
    }

    @Test(arguments: FaultInjection.Step.allCases.filter { !FaultInjection.Step.notOfAnIngest.contains($0) })
    func killedAtEveryStepThenRestarted(step: FaultInjection.Step) throws {
        let world = try TestWorld()
        defer { world.remove() }
        let inputs = try Self.populate(world)
        let arguments = UtensildProcess.arguments(for: world, extra: ["--oneshot", "--workers", "1"])

        let killed = try UtensildProcess.run(arguments, environment: ["UTENSIL_FAULT_KILL_AT": step.rawValue])
        #expect(killed.killedBySignal && killed.status == SIGKILL, "utensild was not killed at \(step): \(killed.errors)")

        let restarted = try UtensildProcess.run(arguments)
        #expect(restarted.status == 0, "\(restarted.output)\n\(restarted.errors)")
        let census = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(census == .init(utensils: 3, rejections: 1, stillInInbox: 0))
    }

    @Test func randomKillsDuringABurstLoseNothing() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let specs = (0..<24).map { TestImages.jpeg(world.root.path + "/p\($0)", width: 1600, height: 1200, seed: 100 + $0) }
        var inputs = try TestImages.make(specs)
        for (index, bytes) in inputs.enumerated() { try world.drop("Burst/Photo \(index).jpg", bytes) }
        inputs.append(Data("junk".utf8))
        try world.drop("Burst/Junk.jpg", inputs.last!)
        let arguments = UtensildProcess.arguments(for: world, extra: ["--oneshot", "--workers", "2"])

        var generator = SeededGenerator(seed: 20261122)
        var kills = 0
        for _ in 0..<12 {
            let (process, _, _) = try UtensildProcess.start(arguments)
            let delay = Double.random(in: 0.01...0.25, using: &generator)
            usleep(useconds_t(delay * 1_000_000))  // The fault's timing, not a synchronisation.
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
        }
        let final = try UtensildProcess.run(arguments)
        #expect(final.status == 0, "\(final.errors)")
        #expect(kills > 0)
        let census = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(census == .init(utensils: 24, rejections: 1, stillInInbox: 0))
    }

    /// On the worker decoding it, or on a thread the codec started (libde265 and dav1d decode
    /// HEIC and AVIF on threads of their own).
    @Test(arguments: ["UTENSIL_FAULT_DECODER_CRASH", "UTENSIL_FAULT_CODEC_THREAD_CRASH"])
    func aDropThatCrashesTheDecoderTwiceIsQuarantined(crashVariable: String) throws {
        let world = try TestWorld()
        defer { world.remove() }
        let inputs = try TestImages.make([
            TestImages.jpeg(world.root.path + "/a", seed: 1),
            TestImages.jpeg(world.root.path + "/b", seed: 2),
        ])
        try world.drop("A good spoon.jpg", inputs[0])
        try world.drop("Poison.jpg", inputs[1])
        let arguments = UtensildProcess.arguments(for: world, extra: ["--oneshot", "--workers", "1"])
        let environment = [crashVariable: "Poison"]

        for attempt in 1...2 {
            let crashed = try UtensildProcess.run(arguments, environment: environment)
            #expect(crashed.killedBySignal && crashed.status == SIGSEGV, "attempt \(attempt): \(crashed.errors)")
        }
        let survived = try UtensildProcess.run(arguments, environment: environment)
        #expect(survived.status == 0, "\(survived.errors)")
        #expect(survived.output.contains("decoder-crash"))
        let sidecar = try world.sidecar(for: "Poison.jpg")
        #expect(sidecar["reason"] as? String == "decoder-crash")
        let census = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(census == .init(utensils: 1, rejections: 1, stillInInbox: 0))
    }

    @Test func anExternalKillIsNeverCountedAsADecoderCrash() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let inputs = try Self.populate(world)
        let arguments = UtensildProcess.arguments(for: world, extra: ["--oneshot", "--workers", "1"])
        for _ in 1...3 {
            let killed = try UtensildProcess.run(arguments, environment: ["UTENSIL_FAULT_KILL_AT": "opened"])
            #expect(killed.killedBySignal)
        }
        let final = try UtensildProcess.run(arguments)
        #expect(final.status == 0)
        #expect(!final.output.contains("decoder-crash"))
        let census = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(census == .init(utensils: 3, rejections: 1, stillInInbox: 0))
    }
}
