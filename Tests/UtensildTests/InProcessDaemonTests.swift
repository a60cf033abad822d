import Foundation
import Logging
import ServiceLifecycle
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilConfig
import UtensilDaemon
import UtensilTestSupport

/// The daemon built and run inside the test process, as hummingbird tests its `Application`:
/// no binary spawned, no socket client; the same ``UtensilDaemon/makeServiceGroup()`` that
/// `utensild` runs, on a temporary folder, shut down through the group's graceful shutdown.
@Suite struct InProcessDaemonTests {
    /// A configuration for `world`: its folders, a socket beside them, no gallery, no hooks.
    static func configuration(_ world: TestWorld) -> UtensilConfiguration {
        var configuration = UtensilConfiguration.defaults
        configuration.inbox = world.inbox.path
        configuration.rejected = world.rejected.path
        configuration.stateDir = world.state.path
        configuration.controlSocket = world.root.appendingPathComponent("control.sock").path
        configuration.webListen = .off
        configuration.workers = 2
        configuration.settleSeconds = 0.2
        configuration.watch = .inotify
        return configuration
    }

    @Test func aDaemonBuiltInProcessIngestsADropAndShutsDownGracefully() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let configuration = Self.configuration(world)
        let daemon = UtensilDaemon(
            configuration: configuration, readConfiguration: { configuration }, logger: TestWorld.quietLogger,
            notifier: nil)
        let group = try await daemon.makeServiceGroup()
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/spoon", width: 640, height: 480, seed: 7)])[0]

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try world.drop("Spoon.jpg", image)
            let catalog = try SQLiteCatalog(path: world.state.appendingPathComponent("utensils.sqlite").path)
            let deadline = ContinuousClock.now + .seconds(60)
            while try catalog.all().isEmpty {
                guard ContinuousClock.now < deadline else { throw TestFailure("the drop was not ingested within 60 s") }
                try await Task.sleep(for: .milliseconds(50))  // Polling with a deadline.
            }
            #expect(try catalog.all().map(\.name) == ["Spoon"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(world.files(in: world.inbox).isEmpty)
        #expect(world.files(in: world.originals).count == 1)
        #expect(!FileManager.default.fileExists(atPath: configuration.controlSocket), "the control socket is removed on shutdown")
    }
}
