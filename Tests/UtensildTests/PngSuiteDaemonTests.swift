import Foundation
import Testing
import UtensilTestSupport

/// PngSuite dropped whole into the real daemon: its 161 valid files (among them `s01i3p01.png`,
/// a 1×1 Adam7-interlaced palette image) become utensils — but for the six that are
/// byte-for-byte copies of another file of the suite (`basi4a08.png` is `bgai4a08.png`), each
/// rejected as `duplicate-content` — and its 14 deliberately broken ones are rejected as
/// `corrupt-image`, each with a sentence saying what to do. The codec-level test
/// (`PngSuiteConformanceTests`) compares each thumbnail with a reference decode.
@Suite("PngSuite through the daemon", .serialized, .tags(.spawnsProcesses))
struct PngSuiteDaemonTests {
    static let suite = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pngsuite")

    @Test func everyValidFileBecomesAUtensilAndEveryBrokenOneIsRejected() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.suite.path).filter { $0.hasSuffix(".png") }.sorted()
        let broken = names.filter { $0.hasPrefix("x") }
        let valid = names.filter { !$0.hasPrefix("x") }
        try #require(broken.count == 14 && valid.count == 161, "PngSuite is incomplete in \(Self.suite.path)")

        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        var contents: [String: Data] = [:]
        for name in names {
            let data = try Data(contentsOf: Self.suite.appendingPathComponent(name))
            contents[name] = data
            try world.drop(name, data)
        }
        let distinct = Set(valid.compactMap { contents[$0] }).count
        #expect(distinct == 155, "PngSuite has six byte-identical copies")

        let rows = try daemon.waitForCatalog(seconds: 120, "\(distinct) utensils") { $0.count == distinct }
        let utensils = Dictionary(uniqueKeysWithValues: rows.map { ($0.name + ".png", $0) })
        let tiny = try #require(utensils["s01i3p01.png"], "the 1×1 interlaced PNG is no utensil")
        #expect(tiny.width == 1 && tiny.height == 1)

        let rejections = broken + valid.filter { utensils[$0] == nil }
        try daemon.waitUntil("\(rejections.count) rejections") {
            let rejected = Set(world.files(in: world.rejected))
            return rejections.allSatisfy { rejected.contains("\($0).error.json") }
        }
        for name in rejections {
            let sidecar = try world.sidecar(for: name)
            let message = sidecar["message"] as? String ?? ""
            #expect(message.hasSuffix(".") && message.contains(";"), "\(name): a sentence saying what to do: \(message)")
            if name.hasPrefix("x") {
                #expect(sidecar["reason"] as? String == "corrupt-image", "\(name): \(sidecar)")
            } else {
                #expect(sidecar["reason"] as? String == "duplicate-content", "\(name): \(sidecar)")
                let twin = utensils.first { contents[$0.key] == contents[name] }
                #expect(twin != nil && message.contains(twin?.value.name ?? "?"), "\(name): no identical utensil named in \(message)")
            }
        }
        #expect(daemon.process.isRunning)
        #expect(try daemon.terminate() == 0)
        let census = try InvariantChecker(world: world).verify(inputs: names.compactMap { contents[$0] })
        #expect(census == .init(utensils: distinct, rejections: rejections.count, stillInInbox: 0))
    }
}
