import Testing

extension Tag {
    /// A suite that starts a real process of ours (`utensild`, `utensilctl`) or a server
    /// (PostgreSQL, journald, Prometheus), or works in a network namespace. `make check` skips
    /// these suites (scripts/list-suites reads the tag from the sources); `make test` runs them.
    @Tag public static var spawnsProcesses: Self
}
