import ServiceLifecycle

/// `STATUS=` and `WATCHDOG=1` (``StatusReporter``), until its turn to stop comes: it is the
/// last service to stop, so systemd hears about the whole shutdown. Only in the group when
/// systemd listens (`NOTIFY_SOCKET`).
struct SystemdStatusService: Service {
    let reporter: StatusReporter

    func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await reporter.runStatus() }
                group.addTask { await reporter.runWatchdog() }
            }
        }
    }
}
