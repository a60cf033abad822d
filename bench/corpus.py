#!/usr/bin/python3
"""Builds the benchmark corpus from real photographs in Debian packages, reproducibly.

    bench/corpus.py OUT_DIR [--profile full|smoke]

The photos come from two Debian packages, fetched with `apt-get download` and unpacked with
`dpkg -x` into OUT_DIR/.debs (nothing is installed):

- lomiri-wallpapers-20.04: Kleiber_by_Lukas_Baubkus.jpg (6028x3391, a bird on a tree) and
  Infinite-Sea_by_Aury88.jpg (4096x4096, a night sky over the sea, progressive);
- mate-backgrounds: the nature photographs (1280x1024 to 2560x1920).

Sets written (file names are valid utensil names, all contents distinct):

- jpeg12/   4032x3024 baseline JPEGs at quality 90, 4:2:0 (a phone's 12 MP): crops of the two
            large photos at their own resolution, and the MATE photos scaled up to cover
            4032x3024. Every fifth one is stored sideways with an EXIF orientation (6, 8 or 3),
            as phones store portrait photos.
- progressive/  the progressive JPEGs exactly as the packages ship them.
- png24/    6000x4000 RGB PNGs (24 MP, zlib level 6 as most tools write them), from the two large
            photos scaled to cover.
- heic12/, webp12/  the first jpeg12 photos as displayed, coded as a phone or a browser hands
            them out: HEIC by heif-enc (libheif-examples; x265 at quality 85, about 2.4 MB
            each, as an iPhone's) and WebP by cwebp (webp; quality 85).

Same inputs, same seed: same pixels. A finished set is kept (OUT_DIR/<set>/.done) and not
rebuilt. Needs /usr/bin/python3 with Pillow (python3-pil), heif-enc and cwebp.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

from PIL import Image, ImageOps

Image.MAX_IMAGE_PIXELS = None

PACKAGES = {
    "lomiri-wallpapers-20.04": ["usr/share/backgrounds"],
    "mate-backgrounds": ["usr/share/backgrounds/mate/nature"],
}
LARGE = ["Kleiber_by_Lukas_Baubkus.jpg", "Infinite-Sea_by_Aury88.jpg"]
PHONE = (4032, 3024)
PNG_SIZE = (6000, 4000)

PROFILES = {
    # set name: how many files
    "full": {"jpeg12": 48, "progressive": None, "png24": 6, "heic12": 12, "webp12": 12},
    "smoke": {"jpeg12": 5, "progressive": 1, "png24": 1, "heic12": 2, "webp12": 2},
}
# The smoke profile keeps make test short: a smaller PNG, the same code paths.
SMOKE_PNG_SIZE = (3000, 2000)


def fetch_sources(cache):
    """apt-get download + dpkg -x each package once; returns the folder of unpacked files."""
    root = os.path.join(cache, "root")
    stamp = os.path.join(cache, ".unpacked")
    if os.path.exists(stamp):
        return root
    os.makedirs(cache, exist_ok=True)
    for package in PACKAGES:
        if not any(f.startswith(package + "_") for f in os.listdir(cache)):
            download(package, cache)
        deb = next(f for f in sorted(os.listdir(cache)) if f.startswith(package + "_") and f.endswith(".deb"))
        subprocess.run(["dpkg", "-x", os.path.join(cache, deb), root], check=True)
    open(stamp, "w").close()
    return root


def download(package, cache):
    command = ["apt-get", "download", "-q", package]
    result = subprocess.run(command, cwd=cache, capture_output=True, text=True)
    if result.returncode != 0:
        # A fresh machine has no package lists yet.
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
        subprocess.run(command, cwd=cache, check=True)


def sources(root):
    large = [os.path.join(root, "usr/share/backgrounds", name) for name in LARGE]
    nature_dir = os.path.join(root, "usr/share/backgrounds/mate/nature")
    nature = [os.path.join(nature_dir, n) for n in sorted(os.listdir(nature_dir)) if n.endswith(".jpg")]
    for path in large + nature:
        if not os.path.exists(path):
            sys.exit(f"corpus: {path} is missing from the unpacked packages")
    return large, nature


def load(path, cache={}):
    if path not in cache:
        image = Image.open(path)
        image = image.convert("RGB")
        cache[path] = image
    return cache[path]


def cover_crop(image, size, rng):
    """Scales `image` (never down below `size`) to cover `size`, then crops at a seeded offset."""
    width, height = size
    scale = max(width / image.width, height / image.height)
    if scale > 1:
        image = image.resize((round(image.width * scale + 0.5), round(image.height * scale + 0.5)), Image.LANCZOS)
    x = rng.randint(0, image.width - width)
    y = rng.randint(0, image.height - height)
    return image.crop((x, y, x + width, y + height))


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    exif[0x010F] = "utensild-bench"  # Make
    return exif.tobytes()


# Stored pixels for a photo displayed upright with this orientation: the inverse transform.
STORE_FOR = {6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270, 3: Image.Transpose.ROTATE_180}


def build_jpeg12(out, count, large, nature, rng):
    pool = large * 3 + nature  # the native-resolution photos weigh more
    for index in range(count):
        source = pool[index % len(pool)]
        orientation = [6, 8, 3][(index // 5) % 3] if index % 5 == 4 else 1
        upright_size = (PHONE[1], PHONE[0]) if orientation in (6, 8) else PHONE
        image = cover_crop(load(source), upright_size, rng)
        if index % 2 == 1:
            image = ImageOps.mirror(image)
        name = os.path.join(out, f"photo {index + 1:03d}.jpg")
        if orientation != 1:
            # A phone held upright stores landscape sensor rows and says how to turn them.
            stored = image.transpose(STORE_FOR[orientation])
            stored.save(name, "JPEG", quality=90, subsampling=2, exif=exif_with_orientation(orientation))
        else:
            image.save(name, "JPEG", quality=90, subsampling=2)


def build_progressive(out, count, large, nature):
    shipped = [large[1]] + [p for p in nature if Image.open(p).info.get("progressive")]
    if count is not None:
        shipped = shipped[-count:]  # the smallest ones for the smoke profile
    for path in shipped:
        stem = os.path.splitext(os.path.basename(path))[0].replace("_", " ")
        shutil.copyfile(path, os.path.join(out, stem + ".jpg"))


def build_png24(out, count, large, size, rng):
    for index in range(count):
        image = cover_crop(load(large[index % len(large)]), size, rng)
        if index % 2 == 1:
            image = ImageOps.mirror(image)
        image.save(os.path.join(out, f"large {index + 1:02d}.png"), "PNG", compress_level=6)


# How each coded set is written from a PNG: the command before "input -o output".
CODERS = {
    "heic12": (".heic", ["heif-enc", "-q", "85", "-p", "preset=ultrafast"]),
    "webp12": (".webp", ["cwebp", "-quiet", "-q", "85"]),
}


def build_coded(out, count, jpeg12, coder):
    """The first `count` jpeg12 photos, upright, re-coded by `coder` (a CODERS entry)."""
    extension, command = coder
    names = sorted(n for n in os.listdir(jpeg12) if n.endswith(".jpg"))[:count]
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            source = os.path.join(scratch, "source.png")
            ImageOps.exif_transpose(Image.open(os.path.join(jpeg12, name))).convert("RGB").save(source, compress_level=1)
            target = os.path.join(out, os.path.splitext(name)[0] + extension)
            subprocess.run(command + [source, "-o", target], check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="full")
    parser.add_argument("--debs", help="where the .deb files are kept (default: OUT/.debs)")
    args = parser.parse_args()

    root = fetch_sources(args.debs or os.path.join(args.out, ".debs"))
    large, nature = sources(root)
    counts = PROFILES[args.profile]
    for name, count in counts.items():
        folder = os.path.join(args.out, name)
        if os.path.exists(os.path.join(folder, ".done")):
            continue
        # Built beside the final folder, then renamed: an interrupted build leaves nothing half made.
        work = tempfile.mkdtemp(prefix=f".{name}.", dir=args.out)
        rng = random.Random(f"utensild-bench-{name}")
        if name == "jpeg12":
            build_jpeg12(work, count, large, nature, rng)
        elif name == "progressive":
            build_progressive(work, count, large, nature)
        elif name == "png24":
            size = SMOKE_PNG_SIZE if args.profile == "smoke" else PNG_SIZE
            build_png24(work, count, large, size, rng)
        elif name in CODERS:
            build_coded(work, count, os.path.join(args.out, "jpeg12"), CODERS[name])
        open(os.path.join(work, ".done"), "w").close()
        shutil.rmtree(folder, ignore_errors=True)
        os.rename(work, folder)
        files = [f for f in os.listdir(folder) if not f.startswith(".")]
        total = sum(os.path.getsize(os.path.join(folder, f)) for f in files)
        print(f"corpus: {name}: {len(files)} files, {total / 1e6:.0f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
