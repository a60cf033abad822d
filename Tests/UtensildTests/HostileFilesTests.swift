import Foundation
import Glibc
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilTestSupport

/// Hostile and odd drops against the real daemon, each with the outcome the contract gives it.
///
/// Each section of the table runs on a fresh daemon: its drops are placed all at once (later
/// waves once the earlier ones are settled), every drop must end as its expected outcome
/// within a generous bound, and then the daemon must still be running, answer
/// `utensilctl status`, ingest a good photo and stop cleanly; the invariant check closes it.
@Suite("Hostile and odd files", .serialized, .tags(.spawnsProcesses))
struct HostileFilesTests {
    /// Where a drop ends.
    enum Outcome: Hashable, Sendable, CustomStringConvertible {
        case utensil
        case rejected(RejectionReason)
        /// Invisible to the daemon (a hidden or partial-download name): never touched.
        case leftInInbox

        var description: String {
            switch self {
            case .utensil: "utensil"
            case .rejected(let reason): reason.rawValue
            case .leftInInbox: "left in the inbox"
            }
        }
    }

    /// What is placed in the inbox.
    enum Entry: Sendable {
        case file(Data)
        case fifo
        case socket
        case symlink(to: String)
        case folder
        /// A hard link to a file `outside` the inbox (made with these bytes on first use), so
        /// that later cases can link the very same file again.
        case hardLink(outside: String, Data)
        /// A folder holding a photo whose drop waits to settle (its mtime 2 s ahead), then
        /// moved out of the inbox and replaced by a symbolic link to where it went: the photo
        /// is refused, never read through the link; the link itself is rejected.
        case folderSwappedForLink(Data)
        /// A photo whose writer creates it in place, writes half, rests a second (five times
        /// `settle_seconds`) still holding it open, then writes the rest and closes it.
        case pausedWriter(Data)
    }

    struct Case: Sendable {
        var label: String
        /// The file name in the inbox, as bytes (it need not be UTF-8).
        var name: [UInt8]
        var entry: Entry
        /// Usually one outcome; seeded bit flips and races accept a few.
        var expected: Set<Outcome>
        /// Later waves are placed once every drop of the earlier ones is settled.
        var wave = 0
        /// Words the rejection message must hold (for bombs: proof they were refused before
        /// decoding, rather than after minutes of work).
        var messageHolds: String?

        init(_ label: String, _ name: String, _ entry: Entry, _ expected: Outcome..., wave: Int = 0) {
            self.init(label, Array(name.utf8), entry, Set(expected), wave: wave)
        }

        init(_ label: String, _ name: [UInt8], _ entry: Entry, _ expected: Set<Outcome>, wave: Int = 0) {
            self.label = label
            self.name = name
            self.entry = entry
            self.expected = expected
            self.wave = wave
        }

        func saying(_ words: String) -> Case {
            var copy = self
            copy.messageHolds = words
            return copy
        }

        var shownName: String { String(decoding: name, as: UTF8.self).debugDescription }
        var bytes: Data? {
            switch entry {
            case .file(let data), .hardLink(_, let data), .pausedWriter(let data): data
            default: nil
            }
        }
    }

    enum Section: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case specialFiles = "special files"
        case damagedData = "empty, truncated and bit-flipped data"
        case bombs = "decoding bombs"
        case formats = "formats and variants"
        case names = "names"
        case duplicates = "duplicates"

        var testDescription: String { rawValue }
    }

    // MARK: The table

    static func cases(_ section: Section, outsidePhoto: String) throws -> [Case] {
        let fx = HostileFixtures.bytes
        let corrupt = Outcome.rejected(.corruptImage)
        switch section {
        case .specialFiles:
            return [
                Case("a named pipe", "Pipe.jpg", .fifo, .rejected(.notARegularFile)),
                Case("a Unix socket", "Socket.jpg", .socket, .rejected(.notARegularFile)),
                Case("a symlink to /etc/shadow", "Shadow.jpg", .symlink(to: "/etc/shadow"), .rejected(.notARegularFile)),
                Case("a symlink to a photo outside the inbox", "Outside.jpg", .symlink(to: outsidePhoto), .rejected(.notARegularFile)),
                Case("a symlink to a folder", "Etc.png", .symlink(to: "/etc"), .rejected(.notARegularFile)),
                Case("a dangling symlink", "Gone.jpg", .symlink(to: "/nonexistent/spoon.jpg"), .rejected(.notARegularFile)),
                Case("a symlink to itself", "Loop.jpg", .symlink(to: "Loop.jpg"), .rejected(.notARegularFile)),
                Case("a folder named x.jpg", "x.jpg", .folder, .rejected(.notARegularFile)),
                Case("a sub-folder swapped for a link while its photo waits", "Swapped", .folderSwappedForLink(try fx("photo6.jpg")), .rejected(.notARegularFile)),
                Case("a photo whose writer rests past the settle time holding it open", "Paused.jpg", .pausedWriter(try fx("photo7.jpg")), .utensil),
            ]
        case .damagedData:
            let jpeg = try fx("photo1.jpg"), png = try fx("photo1.png")
            var cases = [Case("zero bytes", "Empty.jpg", .file(Data()), corrupt)]
            let n = jpeg.count
            for cut in [1, 2, 3, 4, 20, 100, 200, 600, n / 4, n / 2, 3 * n / 4, n - 3, n - 2, n - 1] {
                cases.append(Case("a JPEG cut at \(cut) of \(n) bytes", "JPEG cut at \(cut).jpg", .file(jpeg.prefix(cut)), corrupt))
            }
            let m = png.count
            for cut in [4, 8, 16, 33, 41, 60, 100, m / 4, m / 2, 3 * m / 4, m - 12, m - 4, m - 1] {
                cases.append(Case("a PNG cut at \(cut) of \(m) bytes", "PNG cut at \(cut).png", .file(png.prefix(cut)), corrupt))
            }
            for (label, photo, fileExtension) in [("HEIC", try fx("photo.heic"), "heic"), ("WebP", try fx("photo.webp"), "webp")] {
                let k = photo.count
                for cut in [12, 40, 200, k / 4, k / 2, 3 * k / 4, k - 2, k - 1] {
                    cases.append(Case("a \(label) cut at \(cut) of \(k) bytes", "\(label) cut at \(cut).\(fileExtension)", .file(photo.prefix(cut)), corrupt))
                }
            }
            var generator = SeededGenerator(seed: 7_2026_1122)
            let anyEnd: Set<Outcome> = [.utensil, corrupt, .rejected(.tooManyPixels), .rejected(.unsupportedType)]
            let originals = [
                ("JPEG", try fx("photo2.jpg"), "jpg"), ("PNG", try fx("photo2.png"), "png"),
                ("HEIC", try fx("photo.heic"), "heic"), ("WebP", try fx("photo.webp"), "webp"),
            ]
            for (label, original, fileExtension) in originals {
                for round in 0..<8 {
                    var bytes = original
                    let flips = 1 + round % 4
                    for _ in 0..<flips {
                        let index = Int.random(in: 8..<bytes.count, using: &generator)
                        bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
                    }
                    cases.append(Case("a \(label) with \(flips) flipped bits (round \(round))", Array("\(label) flipped \(round).\(fileExtension)".utf8), .file(bytes), anyEnd))
                }
            }
            return cases
        case .bombs:
            return [
                Case("a 331-byte JPEG declaring 65500×65500", "Huge JPEG.jpg", .file(try fx("jpeg-65500.jpg")), .rejected(.tooManyPixels)).saying("65500×65500"),
                Case("a baseline JPEG declaring 10000×10000 with 8×8 of data", "Baseline bomb.jpg", .file(try fx("baseline-10000.jpg")), corrupt),
                Case("a tiny progressive JPEG declaring 10000×10000", "Progressive bomb.jpg", .file(try fx("progressive-10000.jpg")), corrupt).saying("far too short"),
                Case("the same in 4:4:4: 572 MiB of coefficients, more than memory_budget", "Memory bomb.jpg", .file(try fx("progressive-444-10000.jpg")), .rejected(.tooManyPixels)).saying("memory_budget"),
                Case("the same, padded with 130 KB of comments", "Padded bomb.jpg", .file(try fx("progressive-padded.jpg")), corrupt).saying("far too short"),
                Case("499 repeated scans over 10000×10000 (under libjpeg-turbo's 500)", "Scan passes bomb.jpg", .file(try fx("progressive-499-scans.jpg")), corrupt).saying("more decoding work than utensild allows"),
                Case("1000 repeated scans (over libjpeg-turbo's 500)", "Scan bomb.jpg", .file(try fx("scan-bomb.jpg")), corrupt).saying("500 scans"),
                Case("a 65-byte PNG declaring 30000×30000", "Huge PNG.png", .file(try fx("png-30000.png")), .rejected(.tooManyPixels)).saying("30000×30000"),
                Case("a PNG declaring 2147483647×2", "Wide PNG.png", .file(try fx("png-2g.png")), .rejected(.tooManyPixels)).saying("2147483647×2"),
                Case("a 2 KB HEIC whose grid declares 40000×40000", "Huge HEIC.heic", .file(try fx("heic-40000.heic")), .rejected(.tooManyPixels)).saying("40000×40000"),
                Case("a 90-byte WebP declaring 16384×16384", "Huge WebP.webp", .file(try fx("webp-16384.webp")), .rejected(.tooManyPixels)).saying("16384×16384"),
                Case("a 73 KB black 5000×5000 PNG (75 MB inflated, decoded row by row)", "Big black.png", .file(try fx("png-25mp-black.png")), .utensil),
                Case("a 16×16 PNG whose IDAT inflates to 256 MB", "Zlib bomb.png", .file(try fx("png-zlib-bomb.png")), .utensil),
                Case("a PNG whose iCCP inflates to 128 MB", "ICC bomb.png", .file(try fx("png-iccp-bomb.png")), corrupt).saying("more metadata than utensild reads"),
                Case("a PNG whose zTXt chunks inflate to 128 MB", "Text bomb.png", .file(try fx("png-ztxt-bomb.png")), corrupt).saying("more metadata than utensild reads"),
            ]
        case .formats:
            return [
                Case("a real WebP named .jpg", "WebP.jpg", .file(try fx("real.webp")), .rejected(.extensionMismatch)).saying(".webp"),
                Case("a real WebP named .WEBP", "Real.WEBP", .file(try fx("real.webp")), .utensil),
                Case("a real GIF named .jpg", "GIF.jpg", .file(try fx("real.gif")), .rejected(.unsupportedType)),
                Case("HEIC bytes named .jpg", "HEIC.jpg", .file(try fx("heic.bin")), .rejected(.extensionMismatch)).saying(".heic"),
                Case("a HEIC header with nothing behind it, named .heic", "Phone.heic", .file(try fx("heic.bin")), corrupt),
                Case("AVIF bytes named .png", "AVIF.png", .file(try fx("avif.bin")), .rejected(.extensionMismatch)),
                Case("a JPEG named .heic", "JPEG inside.heic", .file(try fx("photo3.jpg")), .rejected(.extensionMismatch)).saying(".jpg"),
                Case("a PDF named .png", "Document.png", .file(Data("%PDF-1.7\n%âãÏÓ\n1 0 obj\n".utf8)), corrupt),
                Case("text named .jpg", "Notes.jpg", .file(Data("shopping list: spoons\n".utf8)), corrupt),
                Case("a PNG named .jpg", "PNG inside.jpg", .file(try fx("photo3.png")), .rejected(.extensionMismatch)),
                Case("a JPEG named .png", "JPEG inside.png", .file(try fx("photo3.jpg")), .rejected(.extensionMismatch)),
                Case("a CMYK JPEG (Adobe APP14)", "CMYK.jpg", .file(try fx("cmyk.jpg")), .utensil),
                Case("a greyscale JPEG", "Grey.jpg", .file(try fx("grey.jpg")), .utensil),
                Case("a progressive JPEG", "Progressive.jpg", .file(try fx("progressive.jpg")), .utensil),
                Case("a 12-bit JPEG (SOF precision 12)", "Twelve bit.jpg", .file(try fx("twelve-bit.jpg")), .rejected(.unsupportedType)).saying("12-bit"),
                Case("a lossless JPEG (SOF3)", "Lossless.jpg", .file(try fx("lossless.jpg")), .rejected(.unsupportedType)),
                Case("2 MB of APP1 segments (30 × 64 KB) after EXIF", "EXIF chain.jpg", .file(try fx("exif-chain.jpg")), .utensil),
                Case("an EXIF IFD claiming 65535 entries that point outside it", "EXIF evil.jpg", .file(try fx("exif-evil.jpg")), .utensil),
                Case("a PNG with a 1 MB ICC profile", "Big ICC.png", .file(try fx("png-iccp-1m.png")), .utensil),
            ]
        case .names:
            let photo = try fx("photo4.jpg")
            let valid255 = String(repeating: "漢", count: 83) + "ab"  // 85 characters, 251 bytes
            let invalid: [(String, [UInt8])] = [
                ("a 0xFF byte", [0x53, 0xFF, 0x6F]), ("an overlong '/'", [0x41, 0xC0, 0xAF]),
                ("a UTF-16 surrogate", [0x42, 0xED, 0xA0, 0x80]), ("a cut-off character", [0x43, 0xE2, 0x82]),
            ]
            return [
                Case("a line feed", "Spoon\nFork.jpg", .file(photo), .rejected(.nameHasLineBreak)),
                Case("a carriage return", "Spoon\rFork.jpg", .file(photo), .rejected(.nameHasLineBreak)),
                Case("U+2028 LINE SEPARATOR", "Spoon\u{2028}Fork.jpg", .file(photo), .rejected(.nameHasLineBreak)),
                Case("U+0085 NEXT LINE", "\u{85}Ladle.jpg", .file(photo), .rejected(.nameHasLineBreak)),
                Case("a tab inside", "Spoon\tFork.jpg", .file(photo), .rejected(.nameHasControlCharacter)),
                Case("an ANSI escape", "Spoon\u{1B}[31m.jpg", .file(photo), .rejected(.nameHasControlCharacter)),
                Case("DEL", "Spoon\u{7F}.jpg", .file(photo), .rejected(.nameHasControlCharacter)),
                Case("a C1 control (CSI)", "Spoon\u{9B}.jpg", .file(photo), .rejected(.nameHasControlCharacter)),
                Case("a right-to-left override", "Spoon\u{202E}gpj.exe.jpg", .file(photo), .rejected(.nameHasControlCharacter)),
                Case("bidi isolates", "Spoon \u{2066}x\u{2069}.jpg", .file(photo), .rejected(.nameHasControlCharacter)),
                Case("only spaces", "   .jpg", .file(photo), .rejected(.emptyName)),
                Case("only invisible characters (ZWSP, BOM, word joiner)", "\u{200B}\u{FEFF}\u{2060}.jpg", .file(photo), .rejected(.emptyName)),
                Case("only ideographic space, NBSP and tab", "\u{3000}\u{A0}\t.jpg", .file(photo), .rejected(.emptyName)),
                Case("101 characters", String(repeating: "x", count: 101) + ".jpg", .file(photo), .rejected(.nameTooLong)),
                Case("255 bytes, 251 characters", String(repeating: "y", count: 251) + ".jpg", .file(photo), .rejected(.nameTooLong)),
                Case("255 bytes, 85 characters, corrupt", valid255 + ".png", .file(Data("broken".utf8)), corrupt),
                Case("255 bytes, 85 characters", valid255 + ".jpg", .file(try fx("photo5.jpg")), .utensil),
                Case("exactly 100 characters (200 bytes)", String(repeating: "é", count: 100) + ".jpg", .file(try fx("photo6.jpg")), .utensil),
                Case("an emoji ZWJ sequence", "👩‍🍳 Chef's knife.jpg", .file(try fx("photo7.jpg")), .utensil),
                Case("shell and format syntax", "$(touch pwned); `id` %s%n'\"\\.jpg", .file(try fx("photo8.jpg")), .utensil),
                Case("two dots and an upper-case extension", "Spoon.big.JPG", .file(try fx("photo9.jpg")), .utensil),
                Case("a .JPEG extension", "Pan.JPEG", .file(try fx("photo10.jpg")), .utensil),
                Case("a trailing tab is trimmed", "Whisk\t.jpg", .file(try fx("photo11.jpg")), .utensil),
                Case("no extension", "Spoon", .file(photo), .rejected(.unsupportedType)),
                Case("an executable's extension", "Spoon.jpg.exe", .file(photo), .rejected(.unsupportedType)),
                Case("only an extension (a hidden file)", ".jpg", .file(photo), .leftInInbox),
                Case("a partial download", "Spoon.jpg.part", .file(photo), .leftInInbox),
            ] + invalid.map { label, stem in
                Case("invalid UTF-8: \(label)", stem + Array(".jpg".utf8), .file(photo), [.rejected(.nameNotUTF8)])
            }
        case .duplicates:
            let twin = try fx("photo12.jpg")
            return [
                Case("the first Spoon", "Spoon.jpg", .file(try fx("photo13.jpg")), .utensil),
                Case("the same photo under another name", "Same spoon.jpg", .file(try fx("photo13.jpg")), .rejected(.duplicateContent), wave: 1),
                Case("the same name in other letter case", "SPOON.png", .file(try fx("photo4.png")), .rejected(.duplicateName), wave: 1),
                Case("the same name with a trailing space", "Spoon .jpg", .file(try fx("photo14.jpg")), .rejected(.duplicateName), wave: 1),
                Case("the first Crème (NFC)", "Crème.jpg", .file(try fx("photo15.jpg")), .utensil),
                Case("Crème in NFD and upper case", "CRE\u{300}ME.png", .file(try fx("photo2.png")), .rejected(.duplicateName), wave: 1),
                Case("Crème in NFD", "Cre\u{300}me.jpg", .file(try fx("photo16.jpg")), .rejected(.duplicateName), wave: 1),
                Case("Spoon in full-width letters is another name", "Ｓｐｏｏｎ.jpg", .file(try fx("photo1.jpg")), .utensil, wave: 1),
                Case("Spoon with a zero-width space inside", "Sp\u{200B}oon.jpg", .file(try fx("photo7.jpg")), .rejected(.duplicateName), wave: 1),
                Case("Spoon with a soft hyphen and a word joiner", "Spo\u{AD}o\u{2060}n.jpg", .file(try fx("photo8.jpg")), .rejected(.duplicateName), wave: 1),
                Case("a family emoji (joined by U+200D)", "👨‍👩‍👧.jpg", .file(try fx("photo9.jpg")), .utensil),
                Case("the same three people unjoined", "👨👩👧.jpg", .file(try fx("photo6.jpg")), .rejected(.duplicateName), wave: 1),
                // The second link has the first's device, inode, size and mtime: not a drop
                // committed before a crash, but another name for a photo already there.
                Case("a photo hard-linked in from outside", "Linked.jpg", .hardLink(outside: "linked.jpg", try fx("photo5.jpg")), .utensil),
                Case("another hard link to it once it is ingested", "Linked again.jpg", .hardLink(outside: "linked.jpg", try fx("photo5.jpg")), .rejected(.duplicateContent), wave: 1),
                Case("twins dropped together (one wins)", "Twin A.jpg", .file(twin), .utensil, .rejected(.duplicateContent)),
                Case("twins dropped together (one loses)", "Twin B.jpg", .file(twin), .utensil, .rejected(.duplicateContent)),
            ]
        }
    }

    // MARK: The test

    @Test("Hostile and odd drops end as the table says; the daemon runs on", arguments: Section.allCases)
    func hostileDrops(section: Section) throws {
        let world = try TestWorld()
        defer { world.remove() }
        let outside = world.root.appendingPathComponent("outside/Outside photo.jpg")
        try FileManager.default.createDirectory(at: outside.deletingLastPathComponent(), withIntermediateDirectories: true)
        let outsideBytes = try HostileFixtures.bytes("outside.jpg")
        try outsideBytes.write(to: outside)
        let cases = try Self.cases(section, outsidePhoto: outside.path)
        #expect(Set(cases.map(\.name)).count == cases.count, "two cases share a name")

        let daemon = try RunningDaemon(world: world)
        var keepAlive: [Int32] = []
        defer { keepAlive.forEach { close($0) } }
        for wave in Set(cases.map(\.wave)).sorted() {
            let placed = cases.filter { $0.wave == wave }
            for item in placed { try HostileEntries.place(item, in: world, keeping: &keepAlive) }
            try daemon.waitUntil(seconds: 180, "every \(section.rawValue) drop of wave \(wave) to leave the inbox") {
                placed.allSatisfy { $0.expected == [.leftInInbox] || !HostileEntries.exists(world.inbox.path, $0.name) }
            }
        }

        // The daemon is still there, answers, and takes a good photo.
        #expect(daemon.process.isRunning, "utensild died during \(section.rawValue)\n\(daemon.log)")
        let socket = world.root.appendingPathComponent("control.sock").path
        let status = try UtensilctlEndToEndTests.ctl(["status", "--json"], socket: socket)
        #expect(status.status == 0, "utensilctl status: \(status.errors)")
        #expect(status.json?["pid"] as? Int == Int(daemon.process.processIdentifier))
        let good = try HostileFixtures.bytes("photo3.jpg")
        try HostileEntries.place(Case("a good photo", "Good after the table.jpg", .file(good), .utensil), in: world, keeping: &keepAlive)
        try daemon.waitForCatalog("the good photo after the table") { $0.contains { $0.name == "Good after the table" } }
        #expect(try daemon.terminate() == 0)

        // Each drop ended as the table says.
        let sidecars = try HostileEntries.sidecars(in: world.rejected.path)
        let rows = try SQLiteCatalog(path: world.state.appendingPathComponent("utensils.sqlite").path).all()
        var outcomes: [(Case, Outcome)] = []
        for item in cases {
            // Names compare as bytes: Swift's == would equate NFC and NFD spellings.
            let inboxPath = String(decoding: item.name, as: UTF8.self)
            let outcome: Outcome
            if let sidecar = sidecars.first(where: { $0.inboxPath.utf8.elementsEqual(inboxPath.utf8) }) {
                outcome = .rejected(sidecar.reason)
                #expect(sidecar.file.utf8.elementsEqual(inboxPath.utf8), "\(item.label): the sidecar names \(sidecar.file.debugDescription)")
                #expect(sidecar.message.hasSuffix(".") && !sidecar.message.contains("\n"), "\(item.label): \(sidecar.message)")
                if let words = item.messageHolds {
                    #expect(sidecar.message.contains(words), "\(item.label): \(sidecar.message.debugDescription) lacks \(words.debugDescription)")
                }
                #expect(Array((sidecar.rejectedAs + RejectionSidecar.suffix).utf8).count <= 255)
                if String(validating: item.name, as: UTF8.self) != nil {
                    #expect(HostileEntries.exists(world.rejected.path, Array(sidecar.rejectedAs.utf8)), "\(item.label): \(sidecar.rejectedAs) is not in rejected/")
                }
            } else if HostileEntries.exists(world.inbox.path, item.name) {
                outcome = .leftInInbox
            } else if let bytes = item.bytes, let row = rows.first(where: { $0.sha256 == sha256Hex(bytes) }) {
                outcome = .utensil
                let name = try? UtensilName(fileNameBytes: item.name).value
                #expect(row.name.utf8.elementsEqual((name ?? "").utf8), "\(item.label): named \(row.name.debugDescription)")
            } else {
                Issue.record("\(item.label) (\(item.shownName)) left the inbox but is neither a utensil nor a rejection")
                continue
            }
            outcomes.append((item, outcome))
            #expect(item.expected.contains(outcome),
                    "\(item.label) (\(item.shownName)): expected \(item.expected.map(\.description).sorted().joined(separator: " or ")), got \(outcome)")
        }
        #expect(Set(rows.map(\.sha256)).count == rows.count, "two utensils with the same bytes")
        for (item, outcome) in outcomes {
            // A duplicate is a duplicate of something that is there (twins: one won).
            if outcome == .rejected(.duplicateContent), let bytes = item.bytes {
                #expect(rows.contains { $0.sha256 == sha256Hex(bytes) }, "\(item.label): duplicate of nothing")
            }
            if outcome == .rejected(.duplicateName) {
                let key = UtensilName.uniquenessKey(for: UtensilName.stem(of: String(decoding: item.name, as: UTF8.self)).trimmingCharacters(in: .whitespaces))
                #expect(rows.contains { UtensilName.uniquenessKey(for: $0.name) == key }, "\(item.label): duplicate of no name")
            }
        }

        // Nothing outside the inbox was followed, read into the catalog or moved.
        try HostileEntries.checkNothingFollowed(world: world, cases: cases, outside: outside, outsideBytes: outsideBytes)

        // The shared invariant, over everything it can read as a file.
        HostileEntries.setAsideWhatTheInvariantCannotRead(world: world, cases: cases)
        let inputs = cases.filter { HostileEntries.invariantReads($0) }.compactMap(\.bytes) + [good]
        let census = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(census.utensils == rows.count)
    }
}
