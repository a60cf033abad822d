/// Python helpers shared by the fixture scripts (run by ``FixtureTool``).
enum FixtureScripts {
    /// Quadrant colours, top-left, top-right, bottom-left, bottom-right, as displayed.
    static let quadrantColors: [RGB] = [
        RGB(220, 30, 30), RGB(30, 200, 40), RGB(30, 60, 220), RGB(240, 220, 30),
    ]

    static let library = #"""
import struct, sys, zlib
from PIL import Image, ImageOps

QUADRANTS = [(220, 30, 30), (30, 200, 40), (30, 60, 220), (240, 220, 30)]

def quadrants(width, height, colors=QUADRANTS, mode='RGB'):
    """An image whose four quadrants have the given colours."""
    im = Image.new(mode, (width, height))
    half_w, half_h = width // 2, height // 2
    boxes = [(0, 0, half_w, half_h), (half_w, 0, width, half_h), (0, half_h, half_w, height), (half_w, half_h, width, height)]
    for box, color in zip(boxes, colors):
        im.paste(color, box)
    return im

# exif_transpose applies these to show a stored image; storing applies the inverse.
STORE = {1: None, 2: Image.FLIP_LEFT_RIGHT, 3: Image.ROTATE_180, 4: Image.FLIP_TOP_BOTTOM,
         5: Image.TRANSPOSE, 6: Image.ROTATE_90, 7: Image.TRANSVERSE, 8: Image.ROTATE_270}

def exif_block(orientation, big_endian=False, prefix=True):
    """A TIFF structure with one IFD0 entry: Orientation (SHORT)."""
    e = '>' if big_endian else '<'
    tiff = (b'MM\x00*' if big_endian else b'II*\x00') + struct.pack(e + 'I', 8)
    tiff += struct.pack(e + 'H', 1) + struct.pack(e + 'HHI', 0x0112, 3, 1) + struct.pack(e + 'HH', orientation, 0)
    tiff += struct.pack(e + 'I', 0)
    return (b'Exif\x00\x00' if prefix else b'') + tiff

def save_oriented(displayed, path, orientation, big_endian=False, **options):
    """Stores `displayed` so that a viewer honouring EXIF `orientation` shows it as given."""
    op = STORE[orientation]
    stored = displayed.transpose(op) if op is not None else displayed.copy()
    stored.save(path, exif=exif_block(orientation, big_endian, prefix=not path.endswith('.png')), **options)
    back = ImageOps.exif_transpose(Image.open(path)).convert('RGB')
    assert back.size == displayed.size, (path, back.size, displayed.size)

def png_chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)

def pack_row(samples, bit_depth):
    if bit_depth == 8:
        return bytes(samples)
    if bit_depth == 16:
        return b''.join(struct.pack('>H', s) for s in samples)
    out, acc, bits = bytearray(), 0, 0
    for s in samples:
        acc = (acc << bit_depth) | s
        bits += bit_depth
        if bits == 8:
            out.append(acc); acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

def write_png(path, width, height, color_type, bit_depth, pixel, plte=None, trns=None, interlace=False, exif=None):
    """A PNG written by hand (any colour type and depth, Adam7): pixel(x, y) -> tuple of samples."""
    def scanlines(xs, ys):
        return b''.join(b'\x00' + pack_row([s for x in xs for s in pixel(x, y)], bit_depth) for y in ys)
    if interlace:
        raw = b''
        for x0, y0, dx, dy in ADAM7:
            xs, ys = range(x0, width, dx), range(y0, height, dy)
            if len(xs) and len(ys):
                raw += scanlines(xs, ys)
    else:
        raw = scanlines(range(width), range(height))
    data = b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, bit_depth, color_type, 0, 0, 1 if interlace else 0))
    if exif is not None:
        data += png_chunk(b'eXIf', exif)
    if plte is not None:
        data += png_chunk(b'PLTE', b''.join(bytes(c) for c in plte))
    if trns is not None:
        data += png_chunk(b'tRNS', trns)
    data += png_chunk(b'IDAT', zlib.compress(raw, 9)) + png_chunk(b'IEND', b'')
    open(path, 'wb').write(data)

def quadrant_index(x, y, width, height):
    return (1 if x >= width // 2 else 0) + (2 if y >= height // 2 else 0)
"""#
}

/// An RGB colour, for expectations.
struct RGB: Equatable, CustomStringConvertible, Sendable {
    var r: Int, g: Int, b: Int
    init(_ r: Int, _ g: Int, _ b: Int) { (self.r, self.g, self.b) = (r, g, b) }
    var description: String { "(\(r), \(g), \(b))" }

    /// Whether every channel is within `tolerance` of `other`.
    func isClose(to other: RGB, tolerance: Int = 14) -> Bool {
        abs(r - other.r) <= tolerance && abs(g - other.g) <= tolerance && abs(b - other.b) <= tolerance
    }
}
