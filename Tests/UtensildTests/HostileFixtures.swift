import Foundation
import UtensilTestSupport

/// The bytes of the hostile-files table, made once per test run by Debian's python3 with
/// Pillow and zlib: real photos, real WebP and GIF files, and hand-built bombs; HEIC and WebP
/// photos by heif-enc and cwebp, and their bombs by `Tests/Fixtures/phone_photos.py`.
enum HostileFixtures {
    static let made: Result<[String: Data], any Error> = Result { try make() }

    static func bytes(_ name: String) throws -> Data {
        guard let data = try made.get()[name] else { throw TestFailure("no fixture \(name)") }
        return data
    }

    private static func make() throws -> [String: Data] {
        let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("utensild-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try PhonePhotos.runPython(script, arguments: [folder.path, PhonePhotos.fixtureFolder])
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    static let script = #"""
import io, os, random, struct, sys, zlib
from PIL import Image

out = sys.argv[1]
rng = random.Random(20261122)

def picture(width, height, seed, mode="RGB"):
    r = random.Random(seed)
    small = Image.new("RGB", (8, 6))
    small.putdata([(r.randrange(256), r.randrange(256), r.randrange(256)) for _ in range(48)])
    image = small.resize((width, height), Image.BICUBIC)
    return image if mode == "RGB" else image.convert(mode)

def encoded(image, fmt, **options):
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()

def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

def png(width, height, idat, extra=b"", depth=8, colour=2):
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", idat) + chunk(b"IEND", b"")

def deflate_zeros(total, level=9):
    z = zlib.compressobj(level)
    block = bytes(1 << 20)
    parts = []
    while total > 0:
        n = min(total, len(block)); parts.append(z.compress(block[:n])); total -= n
    parts.append(z.flush())
    return b"".join(parts)

def segment(marker, payload):
    return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload

def after_soi(jpeg, segments):
    return jpeg[:2] + segments + jpeg[2:]

# Good photos: one per seed, each unique.
for seed in range(1, 17):
    write(f"photo{seed}.jpg", encoded(picture(640, 480, seed), "JPEG", quality=90))
write("outside.jpg", encoded(picture(640, 480, 99), "JPEG", quality=90))
for seed in range(1, 5):
    write(f"photo{seed}.png", encoded(picture(320, 240, 100 + seed), "PNG"))
write("cmyk.jpg", encoded(picture(400, 300, 40, "CMYK"), "JPEG", quality=90))
write("grey.jpg", encoded(picture(300, 200, 41, "L"), "JPEG", quality=90))
write("progressive.jpg", encoded(picture(640, 480, 42), "JPEG", quality=90, progressive=True))
write("real.webp", encoded(picture(64, 48, 43), "WEBP"))
write("real.gif", encoded(picture(64, 48, 44, "P"), "GIF"))

# HEIC and WebP photos, and their header bombs.
import subprocess, tempfile
sys.path.insert(0, sys.argv[2])
import phone_photos
with tempfile.TemporaryDirectory() as folder:
    picture(640, 480, 48).save(folder + "/heic.png")
    picture(640, 480, 49).save(folder + "/webp.png")
    subprocess.run(["/usr/bin/heif-enc", "-q", "80", "-p", "preset=ultrafast", folder + "/heic.png", "-o", out + "/photo.heic"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["/usr/bin/cwebp", "-quiet", "-q", "85", folder + "/webp.png", "-o", out + "/photo.webp"], check=True)
phone_photos.write_heic_bomb(out + "/heic-40000.heic", 40000, 40000)
phone_photos.write_webp_bomb(out + "/webp-16384.webp", 16384, 16384)
write("heic.bin", struct.pack(">I", 24) + b"ftypheic" + bytes(4) + b"mif1heic" + bytes(64))
write("avif.bin", struct.pack(">I", 28) + b"ftypavif" + bytes(4) + b"avifmif1miaf" + bytes(64))

small = encoded(picture(64, 48, 45), "JPEG", quality=80)
sof = small.index(b"\xff\xc0")
twelve = bytearray(small); twelve[sof + 4] = 12; write("twelve-bit.jpg", bytes(twelve))
lossless = bytearray(small); lossless[sof + 1] = 0xC3; write("lossless.jpg", bytes(lossless))
huge = bytearray(encoded(Image.new("L", (8, 8), 128), "JPEG"))
h = huge.index(b"\xff\xc0"); huge[h + 5:h + 9] = b"\xff\xdc\xff\xdc"; write("jpeg-65500.jpg", bytes(huge))

# Huge EXIF: a real orientation-6 EXIF, then 30 APP1 segments of 64 KB each (an XMP-like chain),
# and a hostile EXIF whose IFD claims 65535 entries and points outside itself.
exif = Image.Exif(); exif[0x0112] = 6
base = encoded(picture(400, 300, 46), "JPEG", quality=85, exif=exif.tobytes())
chain = b"".join(segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + bytes([i]) * 65000) for i in range(30))
write("exif-chain.jpg", base[:2] + base[2:].replace(b"\xff\xdb", chain + b"\xff\xdb", 1))
evil = b"Exif\x00\x00II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 65535) + struct.pack("<HHII", 0x0112, 3, 0xFFFFFFFF, 0xFFFFFFF0) * 200
write("exif-evil.jpg", after_soi(encoded(picture(300, 200, 47), "JPEG", quality=85), segment(0xE1, evil)))

# Progressive bombs: 1000 scans; a tiny progressive file claiming 10000 x 10000; the same padded
# to look long enough, with 499 repeated scans (under libjpeg-turbo's 500-scan limit).
prog = encoded(Image.new("RGB", (64, 64), (120, 80, 40)), "JPEG", quality=80, progressive=True)
sos = [i for i in range(len(prog) - 1) if prog[i] == 0xFF and prog[i + 1] == 0xDA]
last = prog[sos[-1]:-2]
write("scan-bomb.jpg", prog[:sos[-1]] + last * 1000 + b"\xff\xd9")
p = prog.index(b"\xff\xc2")
def claimed(data, width, height):
    d = bytearray(data); i = d.index(b"\xff\xc2"); d[i + 5:i + 9] = struct.pack(">HH", height, width); return bytes(d)
write("progressive-10000.jpg", claimed(prog, 10000, 10000))
padding = b"".join(segment(0xFE, bytes(65000)) for _ in range(2))
write("progressive-padded.jpg", claimed(after_soi(prog, padding), 10000, 10000))
noisy = encoded(Image.frombytes("RGB", (64, 64), bytes(rng.randrange(256) for _ in range(64 * 64 * 3))), "JPEG", quality=95, progressive=True)
nsos = [i for i in range(len(noisy) - 1) if noisy[i] == 0xFF and noisy[i + 1] == 0xDA]
write("progressive-499-scans.jpg", claimed(noisy[:nsos[-1]] + noisy[nsos[-1]:-2] * 499 + b"\xff\xd9", 10000, 10000))
# The same claim in 4:4:4: its coefficients alone (572 MiB) exceed memory_budget.
prog444 = encoded(Image.new("RGB", (64, 64), (40, 80, 120)), "JPEG", quality=80, progressive=True, subsampling=0)
write("progressive-444-10000.jpg", claimed(prog444, 10000, 10000))
base8 = bytearray(encoded(Image.new("L", (8, 8), 128), "JPEG"))
b8 = base8.index(b"\xff\xc0"); base8[b8 + 5:b8 + 9] = struct.pack(">HH", 10000, 10000); write("baseline-10000.jpg", bytes(base8))

# PNG bombs.
write("png-30000.png", png(30000, 30000, zlib.compress(b"")))
write("png-2g.png", png(0x7FFFFFFF, 2, zlib.compress(b"")))
row = 1 + 3 * 5000
write("png-25mp-black.png", png(5000, 5000, deflate_zeros(row * 5000)))
write("png-zlib-bomb.png", png(16, 16, deflate_zeros(1 << 28)))
iccp = chunk(b"iCCP", b"big profile\x00\x00" + zlib.compress(bytes(rng.randrange(256) for _ in range(1 << 20))))
photo_png = encoded(picture(320, 240, 48), "PNG")
write("png-iccp-1m.png", photo_png[:33] + iccp + photo_png[33:])
iccp_bomb = chunk(b"iCCP", b"bomb\x00\x00" + deflate_zeros(1 << 27))
photo_png2 = encoded(picture(320, 240, 49), "PNG")
write("png-iccp-bomb.png", photo_png2[:33] + iccp_bomb + photo_png2[33:])
ztxt = b"".join(chunk(b"zTXt", b"Comment\x00\x00" + deflate_zeros(1 << 26)) for _ in range(2))
photo_png4 = encoded(picture(320, 240, 51), "PNG")
write("png-ztxt-bomb.png", photo_png4[:33] + ztxt + photo_png4[33:])
"""#
}
