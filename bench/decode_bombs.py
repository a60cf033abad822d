#!/usr/bin/python3
"""Small files that are large decodes: 100-megapixel Adam7 PNGs and progressive JPEGs, and
HEIC/AVIF files whose size box lies.

    bench/decode_bombs.py OUT_DIR [--side 10000] [--png 2] [--jpeg 2] [--jpeg-444 0]
                                  [--lying-heic 0] [--lying-avif 0] [--lying-side 16384]

Writes `Adam7 N.png` (8-bit grey, interlaced, about 100 KB at 10000x10000: decoded whole to
RGBA, 400 MB), `Progressive N.jpg` (4:2:0: 300 MB of coefficients) and `Progressive 444 N.jpg`
(4:4:4: 600 MB), each a distinct flat colour. Pillow cannot write interlaced PNGs, so those
are written here with zlib, one row at a time. `Lying N.heic` and `Lying N.avif` declare
300x300 in their `ispe` box but code a flat `--lying-side` square (16384: about 60 KB and
3.5 KB, 1.6 GB and more to decode; made by heif-enc through Tests/Fixtures/phone_photos.py).
Used by `make bench` and by the daemon's memory test (DecodeMemoryTests). Needs
/usr/bin/python3 with Pillow (python3-pil) and heif-enc (libheif-examples).
"""

import argparse
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures"))

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def adam7_png(path, side, grey):
    """A flat grey side x side PNG, Adam7-interlaced, compressed pass row by pass row."""
    compressor = zlib.compressobj(9)
    data = bytearray()
    for x0, y0, dx, dy in ADAM7:
        columns, rows = len(range(x0, side, dx)), len(range(y0, side, dy))
        if columns and rows:
            row = b"\x00" + bytes([grey]) * columns
            for _ in range(rows):
                data += compressor.compress(row)
    data += compressor.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 1)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", bytes(data)) + chunk(b"IEND", b""))


def progressive_jpeg(path, side, colour, subsampling):
    from PIL import Image
    Image.new("RGB", (side, side), colour).save(path, quality=90, progressive=True, subsampling=subsampling)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--side", type=int, default=10000)
    parser.add_argument("--png", type=int, default=2)
    parser.add_argument("--jpeg", type=int, default=2)
    parser.add_argument("--jpeg-444", type=int, default=0)
    parser.add_argument("--lying-heic", type=int, default=0)
    parser.add_argument("--lying-avif", type=int, default=0)
    parser.add_argument("--lying-side", type=int, default=16384)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for index in range(args.png):
        adam7_png(os.path.join(args.out, f"Adam7 {index + 1}.png"), args.side, 40 + 20 * index)
    for index in range(args.jpeg):
        progressive_jpeg(os.path.join(args.out, f"Progressive {index + 1}.jpg"), args.side, (200, 40 + 30 * index, 60), 2)
    for index in range(args.jpeg_444):
        progressive_jpeg(os.path.join(args.out, f"Progressive 444 {index + 1}.jpg"), args.side, (30, 90, 200 - 30 * index), 0)
    if args.lying_heic or args.lying_avif:
        import phone_photos
        for index in range(args.lying_heic):
            phone_photos.write_heif_liar(os.path.join(args.out, f"Lying {index + 1}.heic"), args.lying_side - 8 * index)
        for index in range(args.lying_avif):
            phone_photos.write_heif_liar(os.path.join(args.out, f"Lying {index + 1}.avif"), args.lying_side - 8 * index, avif=True)


if __name__ == "__main__":
    main()
