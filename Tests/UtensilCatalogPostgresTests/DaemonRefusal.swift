import UtensilTestSupport

/// Starts the real daemon on `world` with `extra` and waits (at most `seconds`) for it to
/// exit: its exit status and log. A daemon that starts instead of refusing fails the test at
/// the deadline and is killed.
func daemonRefusal(_ world: TestWorld, extra: [String], seconds: Double = 120) throws -> (status: Int32, log: String) {
    let daemon = try RunningDaemon(world: world, extra: extra, waitForReady: false)
    defer { daemon.kill() }
    try daemon.waitUntil(seconds: seconds, "utensild to refuse to start") { !daemon.process.isRunning }
    daemon.process.waitUntilExit()
    return (daemon.process.terminationStatus, daemon.log)
}
