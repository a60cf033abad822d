"""HEIC and WebP test files beyond what Debian's heif-enc (libheif 1.15) and cwebp write by
themselves: HEIC rotated (`irot`), with an EXIF orientation beside it, split into a grid of
tiles, or with a thumbnail item of our choosing; header bombs of both formats; and HEIC/AVIF
files whose size box lies about the coded stream. Each
picture or tile is HEVC-coded by heif-enc; this module only takes the coded data and its
`hvcC` out of heif-enc's file and writes a new ISO-BMFF file around them.

Used by the codec and daemon tests (Debian's python3 with Pillow, libheif-examples and webp).
"""
import os
import struct
import subprocess
import tempfile

HEIF_ENC = '/usr/bin/heif-enc'


def box(kind, payload):
    return struct.pack('>I4s', 8 + len(payload), kind) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack('>I', (version << 24) | flags) + payload)


def children(data, start, end):
    """(type, payload start, payload end) of the boxes in data[start:end]."""
    position = start
    while position + 8 <= end:
        size, kind = struct.unpack('>I4s', data[position:position + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack('>Q', data[position + 8:position + 16])[0], 16
        elif size == 0:
            size = end - position
        yield kind, position + header, position + size
        position += size


def find(data, start, end, kind):
    return next((s, e) for k, s, e in children(data, start, end) if k == kind)


def read_sized(data, position, size):
    return (int.from_bytes(data[position:position + size], 'big') if size else 0), position + size


def hevc_item(image, quality):
    """Codes a PIL image (even width and height, at least 64 x 64: below that heif-enc pads the
    picture and wraps it in a grid) with heif-enc; returns (hvcC payload, coded data)."""
    assert image.width % 2 == 0 and image.height % 2 == 0 and min(image.size) >= 64, image.size
    with tempfile.TemporaryDirectory() as folder:
        source, coded = os.path.join(folder, 'in.png'), os.path.join(folder, 'out.heic')
        image.convert('RGB').save(source)
        subprocess.run([HEIF_ENC, '-q', str(quality), '-p', 'preset=ultrafast', source, '-o', coded],
                       check=True, stdout=subprocess.DEVNULL)
        data = open(coded, 'rb').read()
    meta = find(data, 0, len(data), b'meta')
    meta = (meta[0] + 4, meta[1])
    primary = struct.unpack('>H', data[find(data, *meta, b'pitm')[0] + 4:][:2])[0]
    # iloc: the primary item's extents (construction method 0: offsets into the file).
    start, _ = find(data, *meta, b'iloc')
    version = data[start]
    sizes, more = data[start + 4], data[start + 5]
    offset_size, length_size, base_size = sizes >> 4, sizes & 15, more >> 4
    index_size = more & 15 if version in (1, 2) else 0
    position = start + 6
    count, position = read_sized(data, position, 2 if version < 2 else 4)
    coded_data = None
    for _ in range(count):
        item, position = read_sized(data, position, 2 if version < 2 else 4)
        if version in (1, 2):
            position += 2
        position += 2
        base, position = read_sized(data, position, base_size)
        extents, position = read_sized(data, position, 2)
        pieces = b''
        for _ in range(extents):
            position += index_size
            offset, position = read_sized(data, position, offset_size)
            length, position = read_sized(data, position, length_size)
            pieces += data[base + offset:base + offset + length]
        if item == primary:
            coded_data = pieces
    # ipco/ipma: the primary item's hvcC.
    iprp = find(data, *meta, b'iprp')
    properties = [(k, data[s:e]) for k, s, e in children(data, *find(data, *iprp, b'ipco'))]
    start, _ = find(data, *iprp, b'ipma')
    flags = int.from_bytes(data[start + 1:start + 4], 'big')
    entries, position = struct.unpack('>I', data[start + 4:start + 8])[0], start + 8
    hvcc = None
    for _ in range(entries):
        item, position = read_sized(data, position, 2 if data[start] < 1 else 4)
        associations, position = data[position], position + 1
        for _ in range(associations):
            index, position = read_sized(data, position, 2 if flags & 1 else 1)
            index &= 0x7FFF if flags & 1 else 0x7F
            if item == primary and properties[index - 1][0] == b'hvcC':
                hvcc = properties[index - 1][1]
    assert coded_data and hvcc, 'heif-enc wrote no plain hvc1 primary item'
    return hvcc, coded_data


def exif_item(orientation):
    """An Exif item: the offset to the TIFF header (0), then a TIFF with IFD0 Orientation."""
    tiff = b'MM\x00*' + struct.pack('>I', 8) + struct.pack('>H', 1)
    tiff += struct.pack('>HHIHH', 0x0112, 3, 1, orientation, 0) + struct.pack('>I', 0)
    return struct.pack('>I', 0) + tiff


def even(value):
    return value + (value & 1)


def write_heic(path, stored, quality=90, irot=0, exif_orientation=None, grid=None, thumbnail=None,
               imir=None, clap=None, identity=False, depth=None, no_data=False, nclx=None):
    """Writes `stored` (a PIL image as coded, before any rotation) as a HEIC file.

    irot: quarter turns anticlockwise that show the image (the `irot` property, 0 for none).
    exif_orientation: an Exif item with this orientation, as cameras add beside `irot`.
    grid: (columns, rows) to code the image as that many tiles of a `grid` item.
    thumbnail: a PIL image stored as the primary image's thumbnail item (`thmb`).
    imir: a mirroring (`imir`) about the vertical axis (0: left and right swap) or the
        horizontal one (1: top and bottom swap), applied after `irot`.
    clap: (width, height) of a centred clean aperture (`clap`): the image is cropped to it.
    identity: the primary item is an `iden` derived image of the coded one (the transforms on it).
    depth: a PIL image stored as an auxiliary depth map (`auxC`, `auxl`) of the primary image.
    no_data: the primary item's data is missing (an `iloc` entry with no extent).
    nclx: (colour primaries, transfer characteristics, matrix coefficients, full range) of a
        `colr` box of type `nclx` on the primary image (H.273 code points; heif-enc writes none).
    (Image sequences are `write_heif_sequence`.)
    """
    width, height = stored.size
    items = []  # (id, type, data, [property boxes], essential flags)
    properties = []

    def prop(kind, payload):
        properties.append(box(kind, payload))
        return len(properties)

    def ispe(w, h):
        return prop(b'ispe', struct.pack('>III', 0, w, h))

    def coded(image):
        hvcc, data = hevc_item(image, quality)
        return [(prop(b'hvcC', hvcc), True), (ispe(*image.size), False)], data

    transforms = []
    if nclx:
        primaries, transfer, matrix, full_range = nclx
        colour = struct.pack('>4sHHHB', b'nclx', primaries, transfer, matrix, 0x80 if full_range else 0)
        transforms.append((prop(b'colr', colour), False))
    if clap:
        numerators = [clap[0], 1, clap[1], 1, 0, 1, 0, 1]  # centred: offsets 0
        transforms.append((prop(b'clap', struct.pack('>8i', *numerators)), True))
    if irot:
        transforms.append((prop(b'irot', bytes([irot & 3])), True))
    if imir is not None:
        transforms.append((prop(b'imir', bytes([imir & 1])), True))
    primary_id = 1
    if grid is None and identity:
        items.append((primary_id, b'iden', b'', [(ispe(width, height), False)] + transforms))
        associations, data = coded(stored)
        tile_ids = [len(items) + 1]
        items.append((len(items) + 1, b'hvc1', data, associations))
    elif grid is None:
        if width % 2 or height % 2:
            raise ValueError('a plain image needs an even width and height: use a grid')
        associations, data = coded(stored)
        items.append((primary_id, b'hvc1', data, associations + transforms))
        tile_ids = []
    else:
        columns, rows = grid
        tile_w, tile_h = even(-(-width // columns)), even(-(-height // rows))
        mosaic = stored.crop((0, 0, tile_w * columns, tile_h * rows))  # Pillow pads with black
        descriptor = struct.pack('>BBBBHH', 0, 0, rows - 1, columns - 1, width, height)
        items.append((primary_id, b'grid', descriptor, [(ispe(width, height), False)] + transforms))
        tile_ids = []
        for row in range(rows):
            for column in range(columns):
                tile = mosaic.crop((column * tile_w, row * tile_h, (column + 1) * tile_w, (row + 1) * tile_h))
                associations, data = coded(tile)
                tile_ids.append(len(items) + 1)
                items.append((len(items) + 1, b'hvc1', data, associations))
    references = b''
    if tile_ids:
        references += box(b'dimg', struct.pack('>HH', primary_id, len(tile_ids)) + b''.join(struct.pack('>H', t) for t in tile_ids))
    if thumbnail is not None:
        associations, data = coded(thumbnail)
        thumb_id = len(items) + 1
        items.append((thumb_id, b'hvc1', data, associations))
        references += box(b'thmb', struct.pack('>HHH', thumb_id, 1, primary_id))
    if exif_orientation is not None:
        exif_id = len(items) + 1
        items.append((exif_id, b'Exif', exif_item(exif_orientation), []))
        references += box(b'cdsc', struct.pack('>HHH', exif_id, 1, primary_id))
    hidden = set(tile_ids)
    if depth is not None:
        associations, data = coded(depth)
        depth_id = len(items) + 1
        aux_type = prop(b'auxC', struct.pack('>I', 0) + b'urn:mpeg:hevc:2015:auxid:2\x00')
        items.append((depth_id, b'hvc1', data, associations + [(aux_type, True)]))
        references += box(b'auxl', struct.pack('>HHH', depth_id, 1, primary_id))
        hidden.add(depth_id)
    if no_data:
        items[0] = items[0][:2] + (b'',) + items[0][3:]

    infe = b''.join(
        full_box(b'infe', 2, 1 if item_id in hidden else 0, struct.pack('>HH4s', item_id, 0, kind) + b'\x00')
        for item_id, kind, _, _ in items)
    ipma_entries = [(item_id, assoc) for item_id, _, _, assoc in items if assoc]
    ipma = struct.pack('>I', len(ipma_entries)) + b''.join(
        struct.pack('>HB', item_id, len(assoc)) + bytes((0x80 if essential else 0) | index for index, essential in assoc)
        for item_id, assoc in ipma_entries)

    def meta_box(offsets):
        iloc = struct.pack('>BBH', 0x44, 0x00, len(items)) + b''.join(
            struct.pack('>HHHII', item_id, 0, 1, offset, len(data)) if data or kind == b'iden'
            else struct.pack('>HHH', item_id, 0, 0)  # no extent: the item has no data
            for (item_id, kind, data, _), offset in zip(items, offsets))
        body = full_box(b'hdlr', 0, 0, struct.pack('>I4s12s', 0, b'pict', b'') + b'\x00')
        body += full_box(b'pitm', 0, 0, struct.pack('>H', primary_id))
        body += full_box(b'iloc', 0, 0, iloc)
        body += full_box(b'iinf', 0, 0, struct.pack('>H', len(items)) + infe)
        if references:
            body += full_box(b'iref', 0, 0, references)
        body += box(b'iprp', box(b'ipco', b''.join(properties)) + full_box(b'ipma', 0, 0, ipma))
        return full_box(b'meta', 0, 0, body)

    ftyp = box(b'ftyp', b'heic' + struct.pack('>I', 0) + b'mif1heic')
    start = len(ftyp) + len(meta_box([0] * len(items))) + 8
    offsets, position = [], start
    for _, _, data, _ in items:
        offsets.append(position)
        position += len(data)
    mdat = box(b'mdat', b''.join(data for _, _, data, _ in items))
    with open(path, 'wb') as out:
        out.write(ftyp + meta_box(offsets) + mdat)


def write_heif_sequence(path):
    """An image sequence (brand `msf1`): a movie box and a track, no still image to show, as the
    HEIF conformance suite's sequence files are to a still-image reader."""
    ftyp = box(b'ftyp', b'msf1' + struct.pack('>I', 0) + b'msf1iso8hevc')
    mvhd = full_box(b'mvhd', 0, 0, struct.pack('>IIII', 0, 0, 1000, 0) + bytes(80))
    moov = box(b'moov', mvhd + box(b'trak', full_box(b'tkhd', 0, 3, bytes(80))))
    with open(path, 'wb') as out:
        out.write(ftyp + moov + box(b'mdat', b''))


def write_heic_displayed(path, displayed, irot, **options):
    """Stores `displayed` turned so that its `irot` shows it as given."""
    stored = displayed.rotate(-90 * irot, expand=True) if irot else displayed
    write_heic(path, stored, irot=irot, **options)


def write_heic_bomb(path, width, height):
    """A small HEIC whose grid and `ispe` claim `width` x `height`, made of one 64 x 64 tile."""
    from PIL import Image
    write_heic(path, Image.new('RGB', (64, 64), (90, 120, 150)), grid=(1, 1))
    data = bytearray(open(path, 'rb').read())
    ispe = data.index(b'ispe')
    data[ispe + 8:ispe + 16] = struct.pack('>II', width, height)
    grid_at = data.rindex(struct.pack('>BBBBHH', 0, 0, 0, 0, 64, 64))
    data[grid_at:grid_at + 8] = struct.pack('>BBBBHH', 0, 0, 0, 0, width, height)
    open(path, 'wb').write(bytes(data))


def write_heif_liar(path, coded_side, declared_side=300, avif=False):
    """A small HEIC (or AVIF) whose `ispe` declares `declared_side` square but whose HEVC (AV1)
    stream codes a flat `coded_side` square picture: the size box lies to the memory budget."""
    from PIL import Image
    with tempfile.TemporaryDirectory() as folder:
        source, coded = os.path.join(folder, 'in.png'), os.path.join(folder, 'out.heif')
        Image.new('RGB', (coded_side, coded_side), (90, 120, 150)).save(source)
        speed = ['-A', '-p', 'speed=9'] if avif else ['-p', 'preset=ultrafast']
        subprocess.run([HEIF_ENC, '-q', '50', *speed, source, '-o', coded], check=True, stdout=subprocess.DEVNULL)
        data = bytearray(open(coded, 'rb').read())
    ispe = data.index(b'ispe')
    assert struct.unpack('>II', data[ispe + 8:ispe + 16]) == (coded_side, coded_side)
    data[ispe + 8:ispe + 16] = struct.pack('>II', declared_side, declared_side)
    open(path, 'wb').write(bytes(data))


def write_webp_bomb(path, width, height):
    """A tiny lossless WebP whose VP8L header claims `width` x `height` (at most 16384 each)."""
    from PIL import Image
    with tempfile.TemporaryDirectory() as folder:
        source, coded = os.path.join(folder, 'in.png'), os.path.join(folder, 'out.webp')
        Image.new('RGB', (16, 16), (90, 120, 150)).save(source)
        subprocess.run(['/usr/bin/cwebp', '-quiet', '-lossless', source, '-o', coded], check=True)
        data = bytearray(open(coded, 'rb').read())
    at = data.index(b'VP8L') + 8  # signature 0x2f, then 14 bits width - 1, 14 bits height - 1
    bits = 0x2F | (width - 1) << 8 | (height - 1) << 22 | (data[at + 4] & 0xF0) << 32
    data[at:at + 5] = bits.to_bytes(5, 'little')
    open(path, 'wb').write(bytes(data))
