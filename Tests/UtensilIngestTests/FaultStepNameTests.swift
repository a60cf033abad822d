import Testing
import UtensilStore

/// `UTENSIL_FAULT_KILL_AT` takes the steps by the names the crash-safety tests always used.
@Suite struct FaultStepNameTests {
    @Test func stepsKeepTheirNames() {
        #expect(FaultInjection.Step.allCases.map(\.rawValue) == [
            "opened", "original-written", "thumbnail-written", "files-durable", "committed", "drop-removed",
            "sidecar-written", "rejection-moved", "thumbnail-moved", "original-moved", "delete-files-staged",
            "delete-committed", "delete-file-removed", "rename-committed", "rethumb-staged", "rethumb-moved",
        ])
        #expect(FaultInjection.Step(rawValue: "files-durable") == .filesDurable)
        #expect(FaultInjection.Step(rawValue: "filesDurable") == nil)
    }
}
