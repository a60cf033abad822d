import Foundation
import UtensilControlProtocol
import UtensilCore
import Testing
@testable import utensilctl

@Suite struct EscapingTests {
    @Test(arguments: [
        ("Spoon", "Spoon"),
        ("Spoon\u{1B}[31mRED", "Spoon\\u{1B}[31mRED"),
        ("a\nb\rc\td", "a\\u{A}b\\u{D}c\\u{9}d"),
        ("\u{0}\u{7F}\u{85}\u{9B}", "\\u{0}\\u{7F}\\u{85}\\u{9B}"),
        ("evil\u{202E}gpj.exe", "evil\\u{202E}gpj.exe"),
        ("\u{2066}x\u{2069}", "\\u{2066}x\\u{2069}"),
        ("line\u{2028}break", "line\\u{2028}break"),
        ("Löffel 🥄 スプーン", "Löffel 🥄 スプーン"),
        ("👩‍🍳", "👩‍🍳"),  // the joiner is not a control to escape
        ("👨‍👩‍👧 ❤️ 🏳️‍🌈", "👨‍👩‍👧 ❤️ 🏳️‍🌈"),  // nor are joiners and variation selectors in emoji
        ("Sp\u{200B}oon", "Sp\\u{200B}oon"),
        ("Sp\u{200D}o\u{FE0F}on\u{FEFF}\u{AD}\u{2060}\u{200C}", "Sp\\u{200D}o\\u{FE0F}on\\u{FEFF}\\u{AD}\\u{2060}\\u{200C}"),
        ("back\\slash", "back\\slash"),
        // Interlinear annotation marks: format characters that hide the text between them.
        ("Spoon\u{FFF9}hid\u{FFFA}den\u{FFFB}", "Spoon\\u{FFF9}hid\\u{FFFA}den\\u{FFFB}"),
    ])
    func escapes(_ raw: String, _ shown: String) {
        #expect(TerminalText.escaped(raw) == shown)
    }

    @Test func escapedTextHasNoControlBytes() {
        let hostile = String(decoding: (0...0x7F).map { UInt8($0) }, as: UTF8.self) + "\u{80}\u{9F}"
        let escaped = TerminalText.escaped(hostile)
        #expect(escaped.unicodeScalars.allSatisfy { !VisibleText.hides($0) })
    }
}

@Suite struct ColourTests {
    @Test func colourOnlyOnATerminalWithoutNoColor() {
        #expect(Terminal.allowsColor(isTTY: true, environment: [:]))
        #expect(Terminal.allowsColor(isTTY: true, environment: ["NO_COLOR": ""]))
        #expect(!Terminal.allowsColor(isTTY: true, environment: ["NO_COLOR": "1"]))
        #expect(!Terminal.allowsColor(isTTY: false, environment: [:]))
    }

    @Test func plainStyleAddsNothing() {
        #expect(Style.plain.red("x") == "x")
        #expect(Style(enabled: true).red("x") == "\u{1B}[31mx\u{1B}[0m")
    }

    @Test func showNamesTheHostThatIngestedTheUtensil() {
        var utensil = UtensilInfo(
            id: "A", name: "Spoon", fileExtension: "png", createdAt: .init(timeIntervalSince1970: 0), width: 1, height: 1,
            bytes: 1, original: "/o", thumbnail: "/t")
        #expect(!UtensilView.render(utensil, style: .plain).contains { $0.contains("host") })
        utensil.host = "kitchen-2"
        #expect(UtensilView.render(utensil, style: .plain).contains { $0.contains("host") && $0.contains("kitchen-2") })
    }

    @Test func statusSaysWhenTheLastErrorHappenedAndWhetherItPassed() {
        var status = StatusInfo(
            version: "1", pid: 1, uptimeSeconds: 60, inbox: "/i", rejectedDir: "/r", stateDir: "/s", utensils: 0, queued: 0,
            inFlight: 0, ingested: 0, rejected: 0, lastError: "the disk is full", watching: "inotify", inboxMissing: false)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        status.lastErrorAt = now.addingTimeInterval(-1200)
        status.lastErrorPassed = true
        let utc = TimeZone(identifier: "UTC")!
        let passed = StatusView.render(status, style: .plain, now: now, timeZone: utc).first { $0.contains("last error") } ?? ""
        #expect(passed.contains("the disk is full (") && passed.contains("20m 00s ago; passed)"), "\(passed)")
        status.lastErrorPassed = false
        let ongoing = StatusView.render(status, style: .plain, now: now, timeZone: utc).first { $0.contains("last error") } ?? ""
        #expect(ongoing.contains("not passed yet"), "\(ongoing)")
    }

    @Test func previewNeedsColour() {
        var utensil = UtensilInfo(
            id: "A", name: "Spoon", fileExtension: "png", createdAt: .init(timeIntervalSince1970: 0), width: 1, height: 1,
            bytes: 1, original: "/o", thumbnail: "/t")
        utensil.preview = RGBPreview(width: 1, height: 2, rgb: Data([0, 0, 0, 9, 9, 9]))
        let noColour = UtensilView.preview(utensil, terminal: Terminal(isTTY: true, allowsColor: false, columns: 80))
        #expect(noColour.lines.isEmpty && noColour.note != nil)
        let colour = UtensilView.preview(utensil, terminal: Terminal(isTTY: true, allowsColor: true, columns: 80))
        #expect(colour.lines == ["  \u{1B}[38;2;0;0;0m\u{1B}[48;2;9;9;9m▀\u{1B}[0m"])
    }
}
