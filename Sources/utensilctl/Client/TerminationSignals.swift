import Glibc

/// The signals that end `utensilctl`: a parent may start it with them blocked (a test runner,
/// a supervisor whose threads block them to wait for them), and a blocked mask is inherited
/// across `exec`. Unblocked at start so `kill PID` ends `utensilctl events`; a signal its
/// parent chose to ignore (a shell's background job, `nohup`) stays ignored.
enum TerminationSignals {
    static let ending = [SIGTERM, SIGINT, SIGHUP, SIGQUIT]

    static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in ending { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
