import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// `GET /metrics` of the real daemon, in the Prometheus text format, after drops; and a real
/// Prometheus server (Debian's `prometheus`, installed by `make unit-test`'s package list)
/// scraping it on loopback and answering a query for the ingest counter.
@Suite(.serialized, .tags(.spawnsProcesses)) struct MetricsTests {
    /// A daemon whose gallery listens on a free loopback port, after 3 ingests and 1 rejection.
    static func populated(hostName: String, extra: [String] = []) throws -> (TestWorld, RunningDaemon, Int) {
        let world = try TestWorld()
        let port = try LoopbackSocket.freePort()
        let daemon = try RunningDaemon(
            world: world, extra: ["--web-listen", "127.0.0.1:\(port)", "--host-name", hostName] + extra)
        let photos = try TestImages.make((1...3).map { TestImages.jpeg(world.root.appendingPathComponent("p\($0).jpg").path, seed: $0) })
        for (index, photo) in photos.enumerated() { try world.drop("Spoon \(index).jpg", photo) }
        try world.drop("Broken.jpg", Data("not a photo".utf8))
        try daemon.waitForUtensils(3)
        try daemon.waitUntil("the rejection") { world.files(in: world.rejected).contains("Broken.jpg") }
        return (world, daemon, port)
    }

    /// The body of a 200 answer of Prometheus' API to `GET path`, else nil. Unlike
    /// `WebClient.get`, the request is not followed by a half-close: Go's HTTP server takes it for
    /// a client gone away and cancels the query ("query was canceled in expression evaluation").
    static func askPrometheus(_ api: WebClient, _ path: String) throws -> String? {
        let fd = try api.connect()
        defer { close(fd) }
        guard api.send(fd, Data("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)) else { return nil }
        let text = String(decoding: SocketIO.receiveAll(fd), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200 "), let head = text.range(of: "\r\n\r\n") else { return nil }
        return String(text[head.upperBound...])
    }

    /// `name{labels} value` lines of an exposition, by series.
    static func series(_ text: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            result[String(line[..<space])] = value
        }
        return result
    }

    @Test func metricsCountDropsByReasonWithTheHostLabel() throws {
        let (world, daemon, port) = try Self.populated(hostName: "kitchen-1")
        defer { world.remove() }
        let web = WebClient(port: port)
        _ = try web.get("/api/v1/status")
        _ = try web.get("/no/such/page")
        // The counters are bumped just after the files move and the rows commit: poll for them.
        var reply = try web.get("/metrics")
        try daemon.waitUntil("the metrics to count every drop") {
            guard let scraped = try? web.get("/metrics") else { return false }
            reply = scraped
            let series = Self.series(scraped.text)
            return series[#"utensild_drops_ingested_total{host="kitchen-1"}"#] == 3
                && series[#"utensild_drops_rejected_total{host="kitchen-1",reason="corrupt-image"}"#] == 1
                && series[#"utensild_ingests_in_flight{host="kitchen-1"}"#] == 0
                && series[#"utensild_queue_depth{host="kitchen-1"}"#] == 0
        }
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = reply.text
        let series = Self.series(text)
        #expect(series[#"utensild_drops_ingested_total{host="kitchen-1"}"#] == 3, "\(text)")
        #expect(series[#"utensild_drops_rejected_total{host="kitchen-1",reason="corrupt-image"}"#] == 1, "\(text)")
        #expect(series[#"utensild_ingest_duration_seconds_count{host="kitchen-1"}"#] == 4)
        #expect(series[#"utensild_catalog_utensils{host="kitchen-1"}"#] == 3)
        #expect(series[#"utensild_queue_depth{host="kitchen-1"}"#] == 0)
        #expect(series[#"utensild_ingests_in_flight{host="kitchen-1"}"#] == 0)
        #expect(series[#"utensild_decoding_memory_bytes{host="kitchen-1"}"#] == 0)
        #expect(series[#"utensild_decoding_memory_budget_bytes{host="kitchen-1"}"#] == 536_870_912)
        #expect(series[#"utensild_decoding_memory_waits_total{host="kitchen-1"}"#] == 0)
        #expect(series[#"utensild_watcher_overflows_total{host="kitchen-1"}"#] == 0)
        #expect(series[#"utensild_catalog_errors_total{host="kitchen-1"}"#] == 0)
        #expect((series[#"utensild_catalog_commit_duration_seconds_count{host="kitchen-1"}"#] ?? 0) >= 1)
        #expect(series[#"utensild_inbox_rescans_total{host="kitchen-1",reason="start-up"}"#] == 1)
        #expect(series.keys.contains { $0.hasPrefix("utensild_web_requests_total{") && $0.contains(#"route="/api/v1/status""#) && $0.contains(#"status="200""#) && $0.contains(#"host="kitchen-1""#) }, "\(text)")
        #expect(series.keys.contains { $0.hasPrefix("utensild_web_requests_total{") && $0.contains(#"route="NotFound""#) && $0.contains(#"status="404""#) }, "\(text)")
        #expect(text.contains("# HELP utensild_drops_ingested_total "))
        #expect(text.contains("# TYPE utensild_ingest_duration_seconds histogram"))
        // Every series carries the host.
        for name in series.keys { #expect(name.contains(#"host="kitchen-1""#), "\(name)") }
        #expect(try daemon.terminate() == 0)
    }

    /// Every family of a real scrape, with every kind of series there (drops ingested and
    /// rejected, hook runs, web requests), passes `promtool check metrics`: HELP and TYPE for
    /// each, names and units as Prometheus wants them. Any line promtool prints is a failure.
    @Test func everyMetricPassesPromtool() throws {
        let promtool = "/usr/bin/promtool"
        guard FileManager.default.isExecutableFile(atPath: promtool) else {
            throw TestFailure("\(promtool) is missing: apt-get install prometheus (make unit-test installs it)")
        }
        let (world, daemon, port) = try Self.populated(hostName: "promtool", extra: ["--on-ingest", "/bin/true", "--on-reject", "/bin/true"])
        defer { world.remove() }
        let web = WebClient(port: port)
        _ = try web.get("/no/such/page")
        var text = ""
        try daemon.waitUntil("every kind of series in /metrics") {
            guard let scraped = try? web.get("/metrics") else { return false }
            text = scraped.text
            return ["utensild_drops_ingested_total{", "utensild_drops_rejected_total{", "utensild_hook_runs_total{",
                    "utensild_web_requests_total{", "utensild_web_request_duration_seconds_bucket{"].allSatisfy(text.contains)
        }
        let file = world.root.appendingPathComponent("metrics.txt")
        try Data(text.utf8).write(to: file)
        let check = Process()
        check.executableURL = URL(fileURLWithPath: promtool)
        check.arguments = ["check", "metrics"]
        check.standardInput = try FileHandle(forReadingFrom: file)
        let output = Pipe()
        check.standardOutput = output
        check.standardError = output
        try check.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(said.isEmpty, "promtool check metrics:\n\(said)\nthe scrape:\n\(text)")
        #expect(check.terminationStatus == 0, "\(said)")
        // Each family promtool saw has its TYPE and HELP (what promtool checks, said again here).
        let families = Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] })
        #expect(families.count >= 16, "\(families)")
        for family in families { #expect(text.contains("# HELP \(family) "), "\(family)") }
        #expect(try daemon.terminate() == 0)
    }

    @Test func aPrometheusServerScrapesTheDaemonAndAnswersForTheIngestCounter() throws {
        let prometheus = "/usr/bin/prometheus"
        guard FileManager.default.isExecutableFile(atPath: prometheus) else {
            throw TestFailure("\(prometheus) is missing: apt-get install prometheus (make unit-test installs it)")
        }
        let (world, daemon, port) = try Self.populated(hostName: "pantry")
        defer { world.remove() }
        let folder = world.root.appendingPathComponent("prometheus")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("prometheus.yml")
        try """
            global:
              scrape_interval: 2s
              scrape_timeout: 2s
            scrape_configs:
              - job_name: utensild
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]
            """.write(to: config, atomically: true, encoding: .utf8)
        let apiPort = try LoopbackSocket.freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: prometheus)
        server.arguments = [
            "--config.file=\(config.path)", "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
            "--web.listen-address=127.0.0.1:\(apiPort)", "--log.level=warn",
        ]
        // Its log goes to a file (a pipe nobody reads could fill and stop it), shown on failure.
        let logFile = folder.appendingPathComponent("prometheus.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        defer { try? log.close() }
        server.standardOutput = log
        server.standardError = log
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let api = WebClient(port: apiPort)
        let query = "/api/v1/query?query=utensild_drops_ingested_total"
        var answer = ""
        let detail = {
            let targets = (try? api.get("/api/v1/targets").text) ?? "(no answer from Prometheus)"
            let serverLog = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            return "last answer: \(answer)\ntargets: \(targets)\nPrometheus log:\n\(serverLog)\nutensild log:\n\(daemon.log)"
        }
        try Poll.until(
            seconds: 90, "Prometheus to scrape utensild and answer for the ingest counter", every: 200_000, detail: detail
        ) {
            guard let reply = try? Self.askPrometheus(api, query) else { return false }
            answer = reply
            return answer.contains(#""utensild_drops_ingested_total""#) && answer.contains(#""3"]"#)
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "success")
        let results = try #require((object["data"] as? [String: Any])?["result"] as? [[String: Any]], "\(answer)")
        #expect(results.count == 1, "\(answer)")
        let labels = results.first?["metric"] as? [String: String] ?? [:]
        #expect(labels["host"] == "pantry")
        #expect(labels["job"] == "utensild")
        #expect(labels["instance"] == "127.0.0.1:\(port)")
        let value = results.first?["value"] as? [Any] ?? []
        #expect(value.last as? String == "3", "\(answer)")
        // The scrape itself is counted by the daemon.
        let targets = try api.get("/api/v1/targets").text
        #expect(targets.contains(#""health":"up""#), "\(targets)")
        #expect(try daemon.terminate() == 0)
    }
}
