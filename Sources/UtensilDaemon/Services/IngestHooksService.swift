import ServiceLifecycle

/// The ingest hooks (``HookRunner``): the programs queued after each ingest and rejection, at
/// most a few at once. On its turn to stop (once the last ingest is reported), those running
/// are stopped.
struct IngestHooksService: Service {
    let hooks: HookRunner

    func run() async {
        await cancelWhenGracefulShutdown { await hooks.run() }
    }
}
