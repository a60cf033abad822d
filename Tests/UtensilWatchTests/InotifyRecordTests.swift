import Testing
@testable import UtensilWatch

@Suite("inotify record parsing")
struct InotifyRecordTests {
    /// One raw `inotify_event`: header plus the name padded with NULs to `length`.
    static func raw(wd: Int32, mask: UInt32, cookie: UInt32 = 0, name: [UInt8] = [], length: Int? = nil) -> [UInt8] {
        let length = length ?? (name.isEmpty ? 0 : (name.count + 1 + 15) / 16 * 16)
        var out: [UInt8] = []
        withUnsafeBytes(of: wd.littleEndian) { out += $0 }
        withUnsafeBytes(of: mask.littleEndian) { out += $0 }
        withUnsafeBytes(of: cookie.littleEndian) { out += $0 }
        withUnsafeBytes(of: UInt32(length).littleEndian) { out += $0 }
        out += name.prefix(length)
        out += [UInt8](repeating: 0, count: max(0, length - name.count))
        return out
    }

    static func parse(_ buffer: [UInt8]) -> (records: [InotifyRecord], truncated: Bool) {
        buffer.withUnsafeBytes { InotifyRecord.parse($0) }
    }

    @Test func parsesSeveralRecordsWithPaddedNames() {
        let name: [UInt8] = [0x66, 0xFF, 0x2E, 0x6A, 0x70, 0x67]  // "f\xFF.jpg": not UTF-8
        let buffer = Self.raw(wd: 1, mask: 8, name: Array("a.jpg".utf8))
            + Self.raw(wd: 2, mask: 0x80, cookie: 7, name: name)
            + Self.raw(wd: 1, mask: 0x400)
        let (records, truncated) = Self.parse(buffer)
        #expect(!truncated)
        #expect(records == [
            InotifyRecord(wd: 1, mask: 8, cookie: 0, name: Array("a.jpg".utf8)),
            InotifyRecord(wd: 2, mask: 0x80, cookie: 7, name: name),
            InotifyRecord(wd: 1, mask: 0x400, cookie: 0, name: []),
        ])
    }

    @Test func nameFillingItsWholeFieldNeedsNoTerminator() {
        let buffer = Self.raw(wd: 3, mask: 8, name: Array("abcdefgh".utf8), length: 8)
        #expect(Self.parse(buffer).records.first?.name == Array("abcdefgh".utf8))
    }

    @Test func lengthBeyondTheBufferStopsParsing() {
        var buffer = Self.raw(wd: 1, mask: 8, name: Array("ok".utf8))
        buffer += Self.raw(wd: 1, mask: 8, name: Array("cut.jpg".utf8)).dropLast(4)
        let (records, truncated) = Self.parse(buffer)
        #expect(records.count == 1)
        #expect(truncated)
    }

    @Test func hugeLengthDoesNotOverflow() {
        var buffer = Self.raw(wd: 1, mask: 8)
        buffer.replaceSubrange(12..<16, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Self.parse(buffer).truncated)
        #expect(Self.parse(buffer).records.isEmpty)
    }

    @Test func partialHeaderIsTruncation() {
        #expect(Self.parse([1, 0, 0, 0, 8, 0]).truncated)
        #expect(Self.parse([]) .records.isEmpty)
    }
}
