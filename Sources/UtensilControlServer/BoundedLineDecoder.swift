import NIOCore

/// Splits a byte stream into newline-terminated lines of at most `maximumBytes`; a longer
/// line is an error (the connection gets an error reply and is closed), never a buffer that
/// grows without bound.
struct BoundedLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    let maximumBytes: Int

    struct LineTooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let readable = buffer.readableBytesView
        guard let newline = readable.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maximumBytes { throw LineTooLong() }
            return .needMoreData
        }
        let length = newline - readable.startIndex
        if length > maximumBytes { throw LineTooLong() }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: length - 1)! }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
