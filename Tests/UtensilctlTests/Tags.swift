import Testing

extension Tag {
    /// As `Tag.spawnsProcesses` of UtensilTestSupport, which this target does not depend on: a
    /// suite that runs the real `utensilctl` binary. `make check` skips it (scripts/list-suites).
    @Tag static var spawnsProcesses: Self
}
