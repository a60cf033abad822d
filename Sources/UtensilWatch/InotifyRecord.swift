/// One `struct inotify_event` read from the inotify descriptor.
struct InotifyRecord: Equatable {
    var wd: Int32
    var mask: UInt32
    var cookie: UInt32
    /// The entry name inside the watched folder (NUL padding removed); empty for events about
    /// the watched folder itself.
    var name: [UInt8]

    /// Size of the fixed part: wd, mask, cookie, len.
    static let headerSize = 16

    func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }

    /// Decodes the records in `buffer`. Every length is checked against the buffer: a record
    /// that claims more bytes than remain ends parsing and sets `truncated` (the kernel never
    /// does that; treat it as lost events).
    static func parse(_ buffer: UnsafeRawBufferPointer) -> (records: [InotifyRecord], truncated: Bool) {
        var records: [InotifyRecord] = []
        var offset = 0
        while offset < buffer.count {
            guard buffer.count - offset >= headerSize else { return (records, true) }
            let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard length <= buffer.count - nameStart else { return (records, true) }
            let field = buffer[nameStart..<(nameStart + length)]
            let nameEnd = field.firstIndex(of: 0) ?? field.endIndex
            records.append(InotifyRecord(
                wd: wd, mask: mask, cookie: cookie, name: Array(buffer[nameStart..<nameEnd])))
            offset = nameStart + length
        }
        return (records, false)
    }
}
