import Foundation
import Testing
import UtensilTestSupport

/// `log_format`: the real daemon with `--log-format json` writes nothing on stderr but JSON
/// objects, one a line, with the journal's fields; a bad value is a one-line error, exit 78.
@Suite(.tags(.spawnsProcesses)) struct LogFormatTests {
    static let ingestedID = "092aa93d51e24d3a8839ac8796bda321"
    static let rejectedID = "d1c7c9574b2e4974941b108ff0f349c2"

    /// Each line of `log` parsed by Foundation's JSON reader; a line that is no JSON object is an issue.
    static func entries(_ log: String) -> [[String: Any]] {
        var entries: [[String: Any]] = []
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                Issue.record("a stderr line is not a JSON object: \(line)")
                continue
            }
            entries.append(object)
        }
        return entries
    }

    @Test func theDaemonWritesEveryEntryAsOneJSONLine() throws {
        let world = try TestWorld()
        defer { world.remove() }
        // SYSTEMD_LOG_TARGET asks for the journal; the configured format wins.
        let daemon = try RunningDaemon(
            world: world, extra: ["--log-format", "json", "--workers", "3"], environment: ["SYSTEMD_LOG_TARGET": "journal"])
        let photos = try TestImages.make((1...6).map { TestImages.jpeg(world.root.appendingPathComponent("p\($0).jpg").path, seed: $0) })
        // Several workers log at once; each of their lines must stay whole.
        for (index, photo) in photos.enumerated() { try world.drop("Slotted spoon \(index) ü.jpg", photo) }
        let oddName = "Junk \"quoted\" \\ back\u{202E}slash.jpg"
        try world.drop("Junk.jpg", Data("not a photo".utf8))
        try world.drop(oddName, Data("not a photo either".utf8))
        try daemon.waitForUtensils(6)
        try daemon.waitUntil("both rejections") {
            world.files(in: world.rejected).filter { !$0.hasSuffix(".error.json") }.count == 2
        }
        try daemon.waitUntil("the log to say both rejections") {
            daemon.log.components(separatedBy: Self.rejectedID).count == 3
        }
        #expect(try daemon.terminate() == 0)

        let entries = Self.entries(daemon.log)
        #expect(entries.count > 10)
        for entry in entries {
            #expect(entry["SYSLOG_IDENTIFIER"] as? String == "utensild", "\(entry)")
            #expect(entry["MESSAGE"] is String, "\(entry)")
            #expect(["2", "3", "4", "5", "6", "7"].contains(entry["PRIORITY"] as? String ?? ""), "\(entry)")
            let stamp = entry["TIMESTAMP"] as? String ?? ""
            #expect(stamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(entry)")
        }
        let ingested = entries.filter { $0["MESSAGE_ID"] as? String == Self.ingestedID }
        #expect(ingested.count == 6)
        let spoon = try #require(ingested.first { $0["UTENSIL_NAME"] as? String == "Slotted spoon 2 ü" }, "\(ingested)")
        #expect(spoon["INBOX_FILE"] as? String == "Slotted spoon 2 ü.jpg")
        #expect(spoon["PRIORITY"] as? String == "6")
        #expect((spoon["UTENSIL_ID"] as? String)?.count == 36)
        #expect(Int(spoon["DURATION_MS"] as? String ?? "") != nil)
        #expect(spoon["UTENSIL_HOST"] == nil || spoon["UTENSIL_HOST"] is String)

        let rejected = entries.filter { $0["MESSAGE_ID"] as? String == Self.rejectedID }
        let junk = try #require(rejected.first { $0["INBOX_FILE"] as? String == "Junk.jpg" }, "\(rejected)")
        #expect(junk["REJECT_REASON"] as? String == "corrupt-image")
        #expect(junk["PRIORITY"] as? String == "5")
        // A name with quotes, a backslash and a bidi control arrives exactly as it was.
        #expect(rejected.contains { $0["INBOX_FILE"] as? String == oddName }, "\(rejected)")
    }

    @Test func anUnknownFormatExitsSeventyEightNamingTheKey() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let result = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--log-format", "yaml"]))
        #expect(result.status == 78)
        #expect(result.errors.contains("log_format"), "\(result.errors)")
        #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
        let environment = try UtensildProcess.run(
            UtensildProcess.arguments(for: world, extra: ["--check-config"]), environment: ["UTENSILD_LOG_FORMAT": "text"])
        #expect(environment.status == 78)
        #expect(environment.errors.contains("UTENSILD_LOG_FORMAT"), "\(environment.errors)")
    }

    @Test func checkConfigShowsTheFormat() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let result = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--check-config", "--log-format", "json"]))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("\nlog_format = \"json\"\n"), "\(result.output)")
    }
}
