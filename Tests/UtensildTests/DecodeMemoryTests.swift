import Foundation
import Testing
import UtensilTestSupport

/// Decoding memory is budgeted, not just file bytes: a 133 KB interlaced PNG decodes into
/// 400 MB and a progressive JPEG holds all its coefficients, so several at once would take
/// the daemon past the unit's `MemoryMax=1G` (an OOM kill, then a restart loop). A HEIC or
/// AVIF whose size box declares 300 × 300 while its stream codes 8192 × 8192 (400 MB to
/// decode, budgeted as 0.5 MB) is refused as `corrupt-image` before it is decoded.
@Suite("utensild: decoding memory", .serialized, .tags(.spawnsProcesses))
struct DecodeMemoryTests {
    /// `memory_budget`'s default.
    static let budgetMiB = 512.0

    @Test func largeDecodesDroppedAtOnceStayWithinTheBudget() throws {
        let world = try TestWorld()
        defer { world.remove() }
        // 2 × 10000×10000 Adam7 PNGs (381 MiB each to decode), 2 × progressive 4:2:0 JPEGs
        // (286 MiB of coefficients each), one 4:4:4 (572 MiB: more than the whole budget), and
        // a lying HEIC and AVIF.
        let source = world.root.appendingPathComponent("source")
        let inputs = Array(
            try DecodeBombs.make(in: source, pngs: 2, jpegs: 2, jpegs444: 1, lyingHEIC: 1, lyingAVIF: 1, lyingSide: 8192).values)
        #expect(inputs.count == 7)

        let daemon = try RunningDaemon(world: world, extra: ["--workers", "2", "--log-level", "info"])
        let idle = try ProcessMemory.of(daemon.process.processIdentifier)
        try DaemonTests.shell("mv \(DaemonTests.quoted(source))/* \(DaemonTests.quoted(world.inbox))/")
        let rows = try daemon.waitForCatalog(seconds: 600, "four utensils") { $0.count == 4 }
        try daemon.waitUntil(seconds: 60, "the 4:4:4 JPEG and the lying HEIF files to be rejected") {
            world.files(in: world.rejected).count == 6
        }
        let peak = try ProcessMemory.of(daemon.process.processIdentifier)

        #expect(Set(rows.map(\.name)) == ["Adam7 1", "Adam7 2", "Progressive 1", "Progressive 2"])
        let sidecar = try world.sidecar(for: "Progressive 444 1.jpg")
        #expect(sidecar["reason"] as? String == "too-many-pixels")
        #expect((sidecar["message"] as? String)?.contains("memory_budget") == true)
        for name in ["Lying 1.heic", "Lying 1.avif"] {
            let lying = try world.sidecar(for: name)
            #expect(lying["reason"] as? String == "corrupt-image", "\(name): \(lying)")
            #expect((lying["message"] as? String)?.contains("8192×8192") == true, "\(name): \(lying)")
        }
        print("decoding memory: idle \(idle), after the burst \(peak)")
        #expect(
            peak.peakResidentMiB <= idle.peakResidentMiB + Self.budgetMiB,
            "peak RSS \(peak.peakResidentMiB) MiB is above idle \(idle.peakResidentMiB) MiB + memory_budget \(Self.budgetMiB) MiB")
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: inputs, inbox: .mustBeEmpty)
    }
}
