import ArgumentParser
import UtensilControlProtocol

struct Hosts: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the hosts sharing the catalog: up or gone, and what each did since it started.",
        discussion: """
            Each utensild writes a heartbeat into the catalog when it starts, every 10 seconds, \
            and when it stops. A host is up while its last heartbeat is at most 30 seconds old \
            and it has not stopped; else it is gone (stopped, killed, or cut off from the catalog). \
            QUEUED is as of its last heartbeat; INGESTED and REJECTED count since it started. \
            SCHEMA is the newest catalog schema the host's utensild knows (empty when its version \
            does not say): a host below the highest one keeps serving but refuses the catalog \
            at its next start; upgrade it first.

            Examples:
              utensilctl hosts
              utensilctl hosts --json | jq -r '.[] | select(.state == "gone") | .name'
            """)

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation.answer(.hosts, globals, outer: root.globals) { hosts, invocation in
            HostsView.render(hosts, style: invocation.style)
        }
    }
}
