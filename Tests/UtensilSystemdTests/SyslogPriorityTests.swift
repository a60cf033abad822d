import Logging
import Testing
@testable import UtensilSystemd

@Suite struct SyslogPriorityTests {
    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func mapsEachLevel(level: Logger.Level, priority: Int) {
        #expect(level.syslogPriority == priority)
    }
}
