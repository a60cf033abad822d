import UtensilControlProtocol

/// A `rethumb` run in a few words, as `status` and `events` show it.
enum RethumbLine {
    static func render(_ run: RethumbInfo) -> String {
        let failed = run.failed == 0 ? "" : ", \(run.failed) failed"
        let state = run.isRunning ? "running" : "finished"
        return "\(run.selection.rawValue) at \(run.size) px: \(run.done) of \(run.total) done\(failed) (\(state))"
    }
}
