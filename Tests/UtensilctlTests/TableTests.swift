import Foundation
import Testing
import UtensilControlProtocol
@testable import utensilctl

@Suite struct TableTests {
    @Test func alignsColumnsByDisplayWidth() {
        var table = Table(columns: [.init(title: "NAME"), .init(title: "BYTES", alignsRight: true), .init(title: "NOTE")])
        table.rows = [["Spoon", "12", "plain"], ["スプーン", "3456", "wide"], ["👩‍🍳 chef", "7", ""]]
        let lines = table.render()
        #expect(lines == [
            "NAME      BYTES  NOTE",
            "Spoon        12  plain",
            "スプーン   3456  wide",
            "👩‍🍳 chef       7",
        ])
    }

    @Test func escapesAndTruncatesCells() {
        var table = Table(columns: [.init(title: "NAME", maximumWidth: 8), .init(title: "X")])
        table.rows = [["a\u{1B}[2Jb", "1"], ["汤勺汤勺汤勺", "2"]]
        let lines = table.render()
        #expect(lines[1] == "a\\u{1B}…  1")
        #expect(lines[2] == "汤勺汤…   2")
        #expect(!lines.joined().contains("\u{1B}"))
    }

    @Test func headerIsBoldOnlyWithColour() {
        let table = Table(columns: [.init(title: "A")], rows: [["x"]])
        #expect(table.render(style: Style(enabled: true))[0] == "\u{1B}[1mA\u{1B}[0m")
        #expect(table.render(style: .plain)[0] == "A")
    }

    @Test func listViewShowsOneRowPerUtensil() {
        let utc = TimeZone(identifier: "UTC")!
        let lines = UtensilListView.table([Samples.utensil("Spoon"), Samples.utensil("Löffel", id: "B")], timeZone: utc).render()
        #expect(lines[0] == "ID                                    NAME    CATEGORY     PIXELS      SIZE  CREATED")
        #expect(lines[1] == "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F  Spoon   " + String(repeating: " ", count: 10) + "4032×3024  47.1 KiB  2026-11-22 10:15:02")
        #expect(lines[2].hasPrefix("B                                     Löffel  "))
    }

    @Test func formats() {
        #expect(Formats.bytes(512) == "512 B")
        #expect(Formats.bytes(48213) == "47.1 KiB")
        #expect(Formats.bytes(104_857_600) == "100 MiB")
        #expect(Formats.duration(seconds: 42) == "42s")
        #expect(Formats.duration(seconds: 65) == "1m 05s")
        #expect(Formats.duration(seconds: 3725) == "1h 02m")
        #expect(Formats.duration(seconds: 93784) == "1d 2h 03m")
        #expect(ShellQuoting.quoted("abc-1") == "abc-1")
        #expect(ShellQuoting.quoted("it's") == "'it'\\''s'")
    }

    @Test func halfBlocksPairRows() throws {
        let picture = try #require(RGBPreview(width: 1, height: 3, rgb: Data([255, 0, 0, 0, 255, 0, 0, 0, 255])))
        #expect(HalfBlockPicture.render(picture) == [
            "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;255;0m▀\u{1B}[0m",
            "\u{1B}[38;2;0;0;255m\u{1B}[49m▀\u{1B}[0m",
        ])
    }
}
