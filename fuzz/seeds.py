#!/usr/bin/python3
"""Writes the fuzzer's seed images into the folder given (Debian's python3 with Pillow).

Small real images of every kind the codec meets: JPEG baseline/progressive, 4:2:0/4:2:2/4:4:4,
greyscale, CMYK (Adobe), EXIF orientations in both byte orders, restart markers; PNG of every
colour type and bit depth, palette with tRNS, Adam7, eXIf, iCCP and text chunks; HEIC (plain,
alpha, 10-bit, rotated, a grid, a thumbnail item), AVIF and WebP (lossy, lossless, alpha,
animated) by heif-enc, cwebp and img2webp; plus a few hand-made headers (huge dimensions,
12-bit precision). `make fuzz-seeds` merges them into
fuzz/corpus with libFuzzer's -merge=1.
"""
import io
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

from PIL import Image

out = sys.argv[1]
rng = random.Random(7)


def picture(width, height, mode="RGB"):
    small = Image.new("RGB", (4, 3))
    small.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(12)])
    image = small.resize((width, height), Image.BICUBIC)
    return image if mode == "RGB" else image.convert(mode)


def exif(orientation, big_endian=False):
    e = Image.Exif()
    e[0x0112] = orientation
    data = e.tobytes()
    if big_endian:  # Pillow writes little-endian TIFF; rewrite the one entry big-endian.
        data = b"MM\x00\x2a\x00\x00\x00\x08\x00\x01" + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + b"\x00\x00\x00\x00"
        data = b"Exif\x00\x00" + data
    return data


def save(name, image, fmt, **options):
    image.save(f"{out}/{name}", fmt, **options)


save("baseline-420.jpg", picture(40, 30), "JPEG", quality=80)
save("baseline-444.jpg", picture(33, 17), "JPEG", quality=90, subsampling=0)
save("baseline-422.jpg", picture(24, 40), "JPEG", quality=70, subsampling=1)
save("progressive.jpg", picture(48, 32), "JPEG", quality=80, progressive=True)
save("grey.jpg", picture(20, 20, "L"), "JPEG", quality=80)
save("cmyk.jpg", picture(24, 16, "CMYK"), "JPEG", quality=80)
save("exif6.jpg", picture(30, 20), "JPEG", quality=75, exif=exif(6))
save("exif3-mm.jpg", picture(30, 20), "JPEG", quality=75, exif=exif(3, big_endian=True))
save("optimized.jpg", picture(40, 24), "JPEG", quality=60, optimize=True)
buffer = io.BytesIO()
picture(64, 16).save(buffer, "JPEG", quality=60)
jpeg = bytearray(buffer.getvalue())
# A restart interval (DRI) of one MCU, inserted after SOI: libjpeg-turbo then expects RSTn markers.
with open(f"{out}/dri.jpg", "wb") as f:
    f.write(bytes(jpeg[:2]) + b"\xff\xdd\x00\x04\x00\x01" + bytes(jpeg[2:]))
# 12-bit precision and a 65500 x 65500 frame, patched into the SOF0 of a tiny JPEG.
sof = jpeg.index(b"\xff\xc0")
twelve = bytearray(jpeg)
twelve[sof + 4] = 12
open(f"{out}/precision12.jpg", "wb").write(twelve)
huge = bytearray(jpeg)
huge[sof + 5:sof + 9] = b"\xff\xdc\xff\xdc"
open(f"{out}/huge-header.jpg", "wb").write(huge)

save("rgb.png", picture(20, 12), "PNG")
save("rgba.png", picture(16, 16, "RGBA"), "PNG")
save("grey.png", picture(10, 9, "L"), "PNG")
save("grey-alpha.png", picture(9, 10, "LA"), "PNG")
save("bilevel.png", picture(17, 5, "1"), "PNG")
save("palette.png", picture(12, 12, "P"), "PNG", transparency=3)
save("grey16.png", picture(8, 8, "L").convert("I").point(lambda v: v * 250).convert("I;16"), "PNG")
save("interlaced.png", picture(19, 13), "PNG", interlace=1)
save("exif.png", picture(12, 8), "PNG", exif=exif(8))



def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width, height, depth, colour, rows, interlace=0, extra=b""):
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


open(f"{out}/rgb16.png", "wb").write(png(4, 3, 16, 2, b"".join(b"\x00" + bytes(rng.randrange(256) for _ in range(24)) for _ in range(3))))
open(f"{out}/grey2.png", "wb").write(png(9, 2, 2, 0, b"\x00\x1b\x2c\x40" * 2))
open(f"{out}/chunks.png", "wb").write(png(
    2, 2, 8, 2, b"\x00" + bytes(6) + b"\x01" + bytes(6),
    extra=chunk(b"iCCP", b"icc\x00\x00" + zlib.compress(bytes(200))) + chunk(b"tEXt", b"Title\x00spoon")
    + chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(b"ladle" * 20)) + chunk(b"gAMA", struct.pack(">I", 45455))))
open(f"{out}/header-bomb.png", "wb").write(png(30000, 30000, 8, 6, b""))


# HEIC, AVIF and WebP (all under the fuzzer's 8 KiB -max_len).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures"))
import phone_photos  # noqa: E402


def tool(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


with tempfile.TemporaryDirectory() as work:
    def source(name, image):
        path = f"{work}/{name}"
        image.save(path)
        return path
    rgb, rgba = source("rgb.png", picture(64, 64)), source("rgba.png", picture(32, 32, "RGBA"))
    heic = ["/usr/bin/heif-enc", "-q", "30", "-p", "preset=ultrafast"]
    tool(*heic, rgb, "-o", f"{out}/plain.heic")
    tool(*heic, rgba, "-o", f"{out}/alpha.heic")
    tool(*heic, "-t", "16", rgb, "-o", f"{out}/thumbnail.heic")
    deep = f"{work}/deep.png"
    open(deep, "wb").write(png(16, 16, 16, 2, b"".join(b"\x00" + bytes(rng.randrange(256) for _ in range(96)) for _ in range(16))))
    tool(*heic, "-b", "10", deep, "-o", f"{out}/ten-bit.heic")
    tool("/usr/bin/heif-enc", "-q", "30", "--avif", "-p", "speed=9", rgb, "-o", f"{out}/plain.avif")
    phone_photos.write_heic(f"{out}/irot.heic", picture(64, 96), quality=30, irot=1, exif_orientation=8)
    phone_photos.write_heic(f"{out}/grid.heic", picture(129, 64), quality=30, grid=(2, 1))
    phone_photos.write_heic_bomb(f"{out}/header-bomb.heic", 40000, 40000)
    tool("/usr/bin/cwebp", "-q", "50", rgb, "-o", f"{out}/lossy.webp")
    tool("/usr/bin/cwebp", "-lossless", rgb, "-o", f"{out}/lossless.webp")
    tool("/usr/bin/cwebp", "-q", "50", rgba, "-o", f"{out}/alpha.webp")
    second = source("second.png", picture(64, 64))
    tool("/usr/bin/img2webp", "-lossy", "-q", "40", rgb, second, "-o", f"{out}/animated.webp")
    phone_photos.write_webp_bomb(f"{out}/header-bomb.webp", 16384, 16384)
