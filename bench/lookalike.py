#!/usr/bin/python3
"""Look-alike fingerprints: precision and recall on copies made from real photographs.

    bench/lookalike.py --bench .build/debug/utensil-bench [--threshold N] [--synthetic 100000]
                       [--work DIR] [--json FILE]

(make bench-lookalike; make bench runs it too.) Prints the table of docs/PERFORMANCE.md's
"Look-alike fingerprints" (copies caught per transform, distinct pairs within the threshold,
the synthetic catalog's false-pair rate, each against its goal) and, with --json, writes it
with every distance. The photographs are those make/photos.mk installs (Debian's
mate-backgrounds); without them it stops at once, saying so.

Makes copies of the photographs of Debian's mate-backgrounds (JPEG quality 30-95, resized
25-90 %, PNG, WebP and HEIC conversions, EXIF rotation with the pixels rotated, crops up to 5 %
a side, brightness +-10 %, mirror and heavy crops as the known misses), and distinct pictures
(the photos, disjoint and overlapping crops of one large photo, a pan of 20 % as two shots of
one scene), and ten series of twelve different whisks drawn on one bench, the camera moved a
little between shots (a hand-held series; the pairs within each series counted on their own).
utensil-bench fingerprints every file through the real codec; the table gives, for each
transform, how many copies are within the threshold of their original, and the false matches
among the distinct pictures and within the series. The synthetic part fingerprints N grey 32 x 32 crops
(random place, size, quarter turn and contrast) of the same photographs and counts the pairs
within the threshold through the near-neighbour index, separating pairs of crops that overlap
(IoU >= 0.3, the same content) from the rest (of the first 200,000 pairs).
"""

import argparse
import glob
import io
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageDraw, ImageEnhance

NATURE = "/usr/share/backgrounds/mate/nature"
LARGE = "/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg"
ABSTRACT = ["Flow.png", "Gulp.png", "Silk.png", "Spring.png", "Waves.png"]

# The transforms a copy may have been through and should still be caught.
CAUGHT = ["jpeg-q30", "jpeg-q50", "jpeg-q70", "jpeg-q95", "resize-25", "resize-50", "resize-90", "chat-1600-q70",
          "png", "webp-q75", "heic", "exif-rotate-6", "exif-rotate-3", "exif-rotate-8", "crop-2-sides", "crop-5-sides",
          "crop-5-left", "crop-5-top-left", "brighter-10", "darker-10", "resize-50-q60-crop-3"]
# Known misses, measured and written down.
OUT_OF_REACH = ["mirror", "crop-20-sides", "rotate-90-pixels-only"]
# The rows of the table: the transforms to catch, grouped as docs/PERFORMANCE.md shows them.
GROUPS = [
    ("JPEG q30–95; resized 25–90 %; 1,600 px q70; PNG, WebP q75, HEIC; EXIF 3/6/8 with turned pixels; brightness ±10 %",
     [["jpeg-q30", "jpeg-q50", "jpeg-q70", "jpeg-q95", "resize-25", "resize-50", "resize-90", "chat-1600-q70", "png",
       "webp-q75", "heic", "exif-rotate-6", "exif-rotate-3", "exif-rotate-8", "brighter-10", "darker-10"]]),
    ("crop 2 % a side / 3 % a side, resized 50 %, q60", [["crop-2-sides"], ["resize-50-q60-crop-3"]]),
    ("crop 5 % a side / 5 % left / 5 % top and left", [["crop-5-sides"], ["crop-5-left"], ["crop-5-top-left"]]),
]
# The goals of the look-alikes (docs/PERFORMANCE.md).
GOALS = {"recall": 0.95, "distinct_false_matches": 0, "synthetic_false_rate": 1e-5, "one_bench_false_matches": 0}
# The confirmation's greatest residual of a copy (CopyConfirmation.copyResidual in UtensilLookalike).
COPY_RESIDUAL = 1.25
# The bench the whisks of one_bench() lie on: a photo of weathered wood; and how many series of
# twelve whisks are shot on it (each series' pairs are compared, not one series' with another's).
BENCH_SURFACE = os.path.join(NATURE, "Wood.jpg")
BENCH_SERIES = 10


def require_photos():
    """Stops the run, loudly, when the photographs the project installs are not there."""
    missing = [p for p in [NATURE, LARGE] + [os.path.join(os.path.dirname(LARGE), a) for a in ABSTRACT]
               if not os.path.exists(p)]
    if missing or not glob.glob(os.path.join(NATURE, "*.jpg")):
        raise SystemExit(f"lookalike: the photographs are missing ({', '.join(missing) or NATURE + '/*.jpg'}): "
                         "install Debian's mate-backgrounds (make/photos.mk; make bench-lookalike installs it)")
    if shutil.which("heif-enc") is None:
        raise SystemExit("lookalike: heif-enc is missing: install libheif-examples (make bench-lookalike installs it)")


def save_jpeg(image, path, quality=85, exif=None):
    kwargs = dict(quality=quality)
    if exif is not None:
        kwargs["exif"] = exif
    image.convert("RGB").save(path, "JPEG", **kwargs)


def crop_fraction(image, left, top, right, bottom):
    w, h = image.size
    return image.crop((round(w * left), round(h * top), round(w * (1 - right)), round(h * (1 - bottom))))


def resized(image, fraction):
    w, h = image.size
    return image.resize((max(1, round(w * fraction)), max(1, round(h * fraction))), Image.LANCZOS)


def exif_rotated(image, orientation, path):
    """Stores the pixels turned the other way and the EXIF tag that stands them upright."""
    stored = {6: image.transpose(Image.ROTATE_90), 3: image.transpose(Image.ROTATE_180),
              8: image.transpose(Image.ROTATE_270)}[orientation]
    exif = Image.Exif()
    exif[0x0112] = orientation
    save_jpeg(stored, path, 90, exif=exif.tobytes())


def make_copy(image, kind, path):
    """Writes `image` changed by `kind` to `path` (extension chosen here); returns the path."""
    if kind.startswith("jpeg-q"):
        save_jpeg(image, path + ".jpg", int(kind[6:]))
    elif kind.startswith("resize-") and kind.count("-") == 1:
        save_jpeg(resized(image, int(kind[7:]) / 100), path + ".jpg")
    elif kind == "chat-1600-q70":
        copy = image.copy()
        copy.thumbnail((1600, 1600), Image.LANCZOS)
        save_jpeg(copy, path + ".jpg", 70)
    elif kind == "png":
        resized(image, 0.5).save(path + ".png")
    elif kind == "webp-q75":
        image.save(path + ".webp", "WEBP", quality=75)
    elif kind == "heic":
        image.convert("RGB").save(path + ".tmp.png")
        subprocess.run(["heif-enc", "-q", "60", "-o", path + ".heic", path + ".tmp.png"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.remove(path + ".tmp.png")
        return path + ".heic"
    elif kind.startswith("exif-rotate-"):
        exif_rotated(image, int(kind[12:]), path + ".jpg")
    elif kind == "crop-2-sides":
        save_jpeg(crop_fraction(image, .02, .02, .02, .02), path + ".jpg")
    elif kind == "crop-5-sides":
        save_jpeg(crop_fraction(image, .05, .05, .05, .05), path + ".jpg")
    elif kind == "crop-5-left":
        save_jpeg(crop_fraction(image, .05, 0, 0, 0), path + ".jpg")
    elif kind == "crop-5-top-left":
        save_jpeg(crop_fraction(image, .05, .05, 0, 0), path + ".jpg")
    elif kind == "brighter-10":
        save_jpeg(ImageEnhance.Brightness(image).enhance(1.1), path + ".jpg")
    elif kind == "darker-10":
        save_jpeg(ImageEnhance.Brightness(image).enhance(0.9), path + ".jpg")
    elif kind == "resize-50-q60-crop-3":
        save_jpeg(resized(crop_fraction(image, .03, .03, .03, .03), 0.5), path + ".jpg", 60)
    elif kind == "mirror":
        save_jpeg(image.transpose(Image.FLIP_LEFT_RIGHT), path + ".jpg")
    elif kind == "crop-20-sides":
        save_jpeg(crop_fraction(image, .2, .2, .2, .2), path + ".jpg")
    elif kind == "rotate-90-pixels-only":
        save_jpeg(image.transpose(Image.ROTATE_90), path + ".jpg")
    else:
        raise ValueError(kind)
    return path + (".png" if kind == "png" else ".webp" if kind == "webp-q75" else ".jpg")


def distinct_pictures(work):
    """(name, path) of pictures that are not copies of one another."""
    pictures = []
    for path in sorted(glob.glob(os.path.join(NATURE, "*.jpg"))):
        pictures.append((os.path.basename(path)[:-4], path))
    for name in ABSTRACT:
        pictures.append((name[:-4], os.path.join("/usr/share/backgrounds/mate/abstract", name)))
    large = Image.open(LARGE).convert("RGB")
    # Disjoint crops of one large photo, and overlapping ones: a pan of 20 % (two shots of one
    # scene), the left and right halves, the four quadrants, the middle.
    crops = {"large-left-80": (0, 0, .2, 0), "large-right-80": (.2, 0, 0, 0), "large-left-half": (0, 0, .5, 0),
             "large-right-half": (.5, 0, 0, 0), "large-top-left": (0, 0, .5, .5), "large-top-right": (.5, 0, 0, .5),
             "large-bottom-left": (0, .5, .5, 0), "large-bottom-right": (.5, .5, 0, 0),
             "large-middle": (.25, .25, .25, .25)}
    for name, box in crops.items():
        path = os.path.join(work, name + ".jpg")
        save_jpeg(crop_fraction(large, *box), path, 90)
        pictures.append((name, path))
    return pictures


def one_bench(work, count=12, seed=1):
    """(name, path) of `count` different whisks photographed on one bench, as a kitchen team
    would shoot them one after another: the same wooden surface, each whisk drawn with its own
    length, balloon width, wire count, handle colour, angle and place near the middle, and the
    camera moved a little between shots (an 85-90 % crop at a random place, a tilt within 3
    degrees, exposure within 7 %). Not copies of one another, but alike in their layout."""
    rng = random.Random(seed)
    surface = Image.open(BENCH_SURFACE).convert("RGB").resize((3200, 2400), Image.LANCZOS)
    handles = [(20, 20, 20), (180, 30, 30), (230, 230, 230), (40, 60, 160), (120, 80, 40), (200, 200, 60)]
    pictures = []
    for index in range(count):
        shot = surface.copy()
        draw = ImageDraw.Draw(shot)
        cx, cy = 1600 + rng.randint(-250, 250), 1200 + rng.randint(-200, 200)
        angle = rng.uniform(-0.6, 0.6) + (0 if index % 2 else math.pi / 2)
        length, balloon = rng.randint(900, 1400), rng.randint(220, 380)
        ux, uy = math.cos(angle), math.sin(angle)
        px, py = -uy, ux
        draw.line([(cx - ux * length / 2, cy - uy * length / 2), (cx + ux * length * .05, cy + uy * length * .05)],
                  fill=rng.choice(handles), width=rng.randint(60, 110))
        wires = rng.randint(6, 12)
        for wire in range(wires):
            offset = (wire / (wires - 1) - 0.5) * 2
            points = []
            for step in range(41):
                t = step / 40
                along, across = length * (0.05 + 0.55 * t), balloon * math.sin(math.pi * t) * offset
                points.append((cx + ux * along + px * across, cy + uy * along + py * across))
            draw.line(points, fill=(200, 200, 205), width=12)
        scale = rng.uniform(0.85, 0.9)
        w, h = round(3200 * scale), round(2400 * scale)
        x, y = rng.randint(0, 3200 - w), rng.randint(0, 2400 - h)
        shot = shot.rotate(rng.uniform(-3, 3), resample=Image.BICUBIC, center=(1600, 1200)).crop((x, y, x + w, y + h))
        shot = ImageEnhance.Brightness(shot).enhance(rng.uniform(0.93, 1.07)).resize((1600, 1200), Image.LANCZOS)
        name = f"bench-{seed:02d}-whisk-{index + 1:02d}"
        path = os.path.join(work, name + ".jpg")
        save_jpeg(shot, path, 85)
        pictures.append((name, path))
    return pictures


def fingerprint_files(bench, paths, work):
    listing = os.path.join(work, "list.txt")
    with open(listing, "w") as f:
        f.write("\n".join(paths) + "\n")
    out = subprocess.run([bench, "lookalike-files", "--list", listing], check=True, capture_output=True, text=True).stdout
    prints = {}
    for line in out.splitlines():
        parts = line.split("\t")
        prints[parts[0]] = int(parts[1], 16) if parts[1] != "-" else None
    return prints


def confirm_pairs(bench, pairs, work):
    """The finer confirmation (utensil-bench lookalike-confirm) of each (path, path) pair:
    {(path, path): (correlation, residual, microseconds)}, None for a pair it cannot compare."""
    if not pairs:
        return {}
    listing = os.path.join(work, "pairs.txt")
    with open(listing, "w") as f:
        f.write("\n".join(f"{a}\t{b}" for a, b in pairs) + "\n")
    out = subprocess.run([bench, "lookalike-confirm", "--list", listing], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split("\t")
        found[(parts[0], parts[1])] = None if parts[2] == "-" else (float(parts[2]), float(parts[3]), int(parts[4]))
    return found


def distance(a, b):
    return bin(a ^ b).count("1")


def synthetic(bench, count, threshold, work, seed=1):
    """Grey 32 x 32 crops of the photographs, fingerprinted and paired through utensil-bench."""
    rng = random.Random(seed)
    sources = [Image.open(p).convert("L") for p in sorted(glob.glob(os.path.join(NATURE, "*.jpg"))) + [LARGE]]
    sources = [s.resize((s.width // 4, s.height // 4), Image.BOX) for s in sources]
    boxes, raw = [], bytearray()
    for _ in range(count):
        source = rng.randrange(len(sources))
        image = sources[source]
        w = round(image.width * rng.uniform(0.08, 0.6))
        h = round(image.height * rng.uniform(0.08, 0.6))
        x, y = rng.randrange(image.width - w + 1), rng.randrange(image.height - h + 1)
        turn = rng.randrange(4)
        tile = image.crop((x, y, x + w, y + h)).resize((32, 32), Image.BOX)
        if turn:
            tile = tile.transpose([None, Image.ROTATE_90, Image.ROTATE_180, Image.ROTATE_270][turn])
        pixels = np.asarray(tile, dtype=np.float64)
        pixels = np.clip((pixels - pixels.mean()) * rng.uniform(0.7, 1.3) + pixels.mean() + rng.uniform(-20, 20), 0, 255)
        raw += pixels.astype(np.uint8).tobytes()
        boxes.append((source, turn, x, y, w, h))
    grey = os.path.join(work, "synthetic.grey")
    with open(grey, "wb") as f:
        f.write(raw)
    hexes = subprocess.run([bench, "lookalike-grey", "--file", grey], check=True, capture_output=True, text=True).stdout.split()
    kept = [i for i, h in enumerate(hexes) if h != "-"]
    listing = os.path.join(work, "synthetic.hex")
    with open(listing, "w") as f:
        f.write("\n".join(hexes[i] for i in kept) + "\n")
    result = json.loads(subprocess.run([bench, "lookalike-pairs", "--file", listing, "--within", str(threshold)],
                                       check=True, capture_output=True, text=True).stdout)

    def iou(a, b):
        if a[0] != b[0] or a[1] != b[1]:
            return 0.0
        ix = max(0, min(a[2] + a[4], b[2] + b[4]) - max(a[2], b[2]))
        iy = max(0, min(a[3] + a[5], b[3] + b[5]) - max(a[3], b[3]))
        inter = ix * iy
        return inter / (a[4] * a[5] + b[4] * b[5] - inter)

    overlapping = sum(1 for a, b, _ in result["somePairs"] if iou(boxes[kept[a]], boxes[kept[b]]) >= 0.3)
    same_source = sum(1 for a, b, _ in result["somePairs"] if boxes[kept[a]][0] == boxes[kept[b]][0])
    n = len(kept)
    return dict(images=count, fingerprinted=n, featureless=count - n, within=threshold, pairs=result["pairs"],
                pairs_by_distance=result["pairsByDistance"], listed_pairs=len(result["somePairs"]),
                listed_overlapping=overlapping, listed_same_source=same_source, all_pairs=n * (n - 1) // 2,
                lookup_us_median=result["lookupMicrosecondsMedian"], lookup_us_p99=result["lookupMicrosecondsP99"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", default=".build/debug/utensil-bench")
    parser.add_argument("--threshold", type=int, default=12)
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--work")
    parser.add_argument("--json")
    parser.add_argument("--synthetic-only", action="store_true")
    args = parser.parse_args()
    require_photos()
    if not os.access(args.bench, os.X_OK):
        raise SystemExit(f"lookalike: {args.bench} is not there: build utensil-bench first")
    work = args.work or tempfile.mkdtemp(prefix="lookalike-")
    os.makedirs(work, exist_ok=True)
    report = dict(threshold=args.threshold)
    if not args.synthetic_only:
        report.update(real_photos(args, work))
    if args.synthetic:
        s = synthetic(args.bench, args.synthetic, args.threshold, work)
        rate = s["pairs"] / s["all_pairs"]
        cumulative = np.cumsum(s["pairs_by_distance"]).tolist()
        print(f"synthetic: {s['fingerprinted']} fingerprints ({s['featureless']} featureless), {s['pairs']} pairs within "
              f"{args.threshold} of {s['all_pairs']} ({rate:.2e}); of the first {s['listed_pairs']}, {s['listed_overlapping']} "
              f"are crops overlapping by IoU >= 0.3, {s['listed_same_source']} crops of one photo; pairs within d, d = 0...: {cumulative}; look-up median "
              f"{s['lookup_us_median']:.0f} us, p99 {s['lookup_us_p99']:.0f} us (this build)")
        report["synthetic"] = s
    if not args.synthetic_only:
        report["table"] = table(report)
        print()
        print(report["table"])
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


def real_photos(args, work):
    """The copies and the distinct pictures: prints the table, returns its figures."""

    distinct = distinct_pictures(work)
    series = [one_bench(work, seed=seed) for seed in range(1, BENCH_SERIES + 1)]
    originals = [(os.path.basename(p)[:-4], p) for p in sorted(glob.glob(os.path.join(NATURE, "*.jpg")))]
    originals.append(("large", LARGE))
    copies = []  # (original name, kind, path)
    for name, path in originals:
        image = Image.open(path).convert("RGB")
        for kind in CAUGHT + OUT_OF_REACH:
            copies.append((name, kind, make_copy(image, kind, os.path.join(work, f"{name}--{kind}"))))
    prints = fingerprint_files(args.bench, [p for _, p in originals] + [p for _, p in distinct] + [p for s in series for _, p in s]
                               + [c[2] for c in copies], work)
    original_print = {name: prints[path] for name, path in originals}

    # The pairs the fingerprint finds near are looked at again, finer, as the ingest does: a
    # pair near by fingerprint but not confirmed counts as at distance 64 (not a copy).
    near = [(path, dict(originals)[name]) for name, _, path in copies
            if prints[path] is not None and distance(prints[path], original_print[name]) <= args.threshold]
    names = [(n, prints[p]) for n, p in distinct if prints[p] is not None]
    paths = dict(distinct)
    near += [(paths[n], paths[m]) for i, (n, a) in enumerate(names) for m, b in names[i + 1:] if distance(a, b) <= args.threshold]
    for whisks in series:
        shots = [(p, prints[p]) for _, p in whisks if prints[p] is not None]
        near += [(p, q) for i, (p, a) in enumerate(shots) for q, b in shots[i + 1:] if distance(a, b) <= args.threshold]
    confirmations = confirm_pairs(args.bench, near, work)

    def confirmed(a, b):
        c = confirmations.get((a, b))
        return c is None or c[1] <= COPY_RESIDUAL

    def looked(a, b):
        """The distance of two files' fingerprints, 64 when the confirmation says not a copy."""
        if prints[a] is None or prints[b] is None:
            return 64
        d = distance(prints[a], prints[b])
        return d if d > args.threshold or confirmed(a, b) else 64

    rows, fingerprint_only = {}, {}
    copy_residuals = []
    for name, kind, path in copies:
        original = dict(originals)[name]
        rows.setdefault(kind, []).append(looked(path, original))
        fingerprint_only.setdefault(kind, []).append(distance(prints[path], original_print[name]) if prints[path] is not None else 64)
        if confirmations.get((path, original)):
            copy_residuals.append((confirmations[(path, original)][1], f"{name}--{kind}"))
    caught = {k: sum(d <= args.threshold for d in ds) for k, ds in rows.items()}
    caught_by_print = {k: sum(d <= args.threshold for d in ds) for k, ds in fingerprint_only.items()}
    recall = sum(caught[k] for k in CAUGHT) / sum(len(rows[k]) for k in CAUGHT)

    distinct_pairs = sorted((distance(a, b), n, m) for i, (n, a) in enumerate(names) for m, b in names[i + 1:])
    distinct_near = [p for p in distinct_pairs if p[0] <= args.threshold]
    false_matches = [p for p in distinct_near if confirmed(paths[p[1]], paths[p[2]])]
    bench_pairs, bench_paths, near_residuals = [], {}, []
    for whisks in series:
        bench_paths.update(whisks)
        on_bench = [(n, prints[p]) for n, p in whisks if prints[p] is not None]
        bench_pairs += [(distance(a, b), n, m) for i, (n, a) in enumerate(on_bench) for m, b in on_bench[i + 1:]]
    bench_pairs.sort()
    bench_near = [p for p in bench_pairs if p[0] <= args.threshold]
    bench_matches = [p for p in bench_near if confirmed(bench_paths[p[1]], bench_paths[p[2]])]
    for d, n, m in bench_near:
        c = confirmations.get((bench_paths[n], bench_paths[m]))
        if c:
            near_residuals.append((c[1], n, m))
    for d, n, m in distinct_near:
        c = confirmations.get((paths[n], paths[m]))
        if c:
            near_residuals.append((c[1], n, m))
    copy_residuals.sort()
    near_residuals.sort()
    confirm_us = sorted(c[2] for c in confirmations.values() if c)
    bench_series_flagged = len({n[:8] for _, n, _ in bench_matches})
    # Copies against every original but their own.
    cross = min(distance(prints[path], original_print[other]) for name, _, path in copies for other in original_print
                if other != name and prints[path] is not None)

    print(f"threshold {args.threshold} of 64 bits; {len(originals)} originals, {len(copies)} copies, {len(names)} distinct pictures")
    print(f"{'transform':24} caught  max distance  distances")
    for kind in CAUGHT + OUT_OF_REACH:
        ds = rows[kind]
        print(f"{kind:24} {caught[kind]:2}/{len(ds):2}  {max(ds):12}  {sorted(ds)}")
    print(f"recall on the copies to catch: {recall:.1%} (by the fingerprint alone: "
          f"{sum(caught_by_print[k] for k in CAUGHT) / sum(len(rows[k]) for k in CAUGHT):.1%})")
    print(f"confirmation: {len(confirmations)} pairs near by fingerprint looked at again; copies' residual largest "
          f"{copy_residuals[-3:]}; other pictures' smallest {near_residuals[:3]} (a copy at most {COPY_RESIDUAL}); "
          f"comparison median {confirm_us[len(confirm_us) // 2] if confirm_us else 0} us (this build)")
    print(f"distinct pictures: {len(distinct_pairs)} pairs, {len(false_matches)} within the threshold; nearest: {distinct_pairs[:4]}")
    print(f"a copy against another photo's original: nearest distance {cross}")
    print(f"{BENCH_SERIES} series of 12 whisks on one bench: {len(bench_pairs)} pairs, {len(bench_near)} within the threshold, "
          f"{len(bench_matches)} of them confirmed "
          f"(in {bench_series_flagged} series), {sum(p[0] <= args.threshold - 2 for p in bench_pairs)} within {args.threshold - 2}; "
          f"nearest: {bench_pairs[:4]}")
    return dict(recall=recall, caught=caught, distances=rows, false_matches=false_matches,
                caught_by_fingerprint=caught_by_print, fingerprint_distances=fingerprint_only, distinct_near=len(distinct_near), bench_near=len(bench_near),
                copy_residual_largest=copy_residuals[-1][0] if copy_residuals else None,
                other_residual_smallest=near_residuals[0][0] if near_residuals else None,
                confirm_us_median=confirm_us[len(confirm_us) // 2] if confirm_us else None,
                bench_pairs=len(bench_pairs), bench_matches=bench_matches, bench_series_flagged=bench_series_flagged,
                bench_within_less=sum(p[0] <= args.threshold - 2 for p in bench_pairs),
                nearest_on_bench=bench_pairs[:8],
                nearest_distinct=distinct_pairs[:8], nearest_cross=cross, originals=len(originals),
                distinct=len(names), distinct_pairs=len(distinct_pairs), distinct_names=[n for n, _ in names])


def table(report):
    """The Markdown table of docs/PERFORMANCE.md: each group of copies, all of them, the known
    misses, the distinct pictures and the synthetic catalog, with the goals and a verdict."""
    t, rows, distances, alone = report["threshold"], [], report["distances"], report["fingerprint_distances"]
    verdict = lambda ok: "PASS" if ok else "MISS"  # noqa: E731

    def caught(kinds):
        """Caught (near by fingerprint and confirmed), how many, the largest fingerprint distance."""
        ds = [d for k in kinds for d in distances[k]]
        return sum(d <= t for d in ds), len(ds), max(d for k in kinds for d in alone[k])

    for label, parts in GROUPS:
        figures = [caught(kinds) for kinds in parts]
        rows.append((label, " / ".join(f"{c}/{n}" for c, n, _ in figures), " / ".join(str(m) for _, _, m in figures), ""))
    total = [d for k in CAUGHT for d in distances[k]]
    within_less = sum(d <= t - 2 for d in total) / len(total)
    rows.append(("all of the above", f"{sum(d <= t for d in total)}/{len(total)} ({report['recall']:.1%}; "
                 f"{within_less:.1%} at ≤ {t - 2})", "", f"recall ≥ {GOALS['recall']:.0%}: {verdict(report['recall'] >= GOALS['recall'])}"))
    misses = [d for k in OUT_OF_REACH for d in alone[k]]
    missed = " / ".join(str(sum(d <= t for d in distances[k])) for k in OUT_OF_REACH)
    rows.append(("out of reach: mirrored, crop 20 % a side, pixels turned without a tag",
                 f"{missed} of {report['originals']} each", f"nearest {min(misses)}", "written down"))
    nearest = report["nearest_distinct"][0][0] if report["nearest_distinct"] else "-"
    false = len(report["false_matches"])
    rows.append((f"distinct pictures: {report['distinct']} (the photos; 9 crops of one large one, 2 of them as two shots of one scene), "
                 f"{report['distinct_pairs']} pairs", f"{report['distinct_near']} within {t}, {false} of them confirmed",
                 f"nearest {nearest}",
                 f"none: {verdict(false <= GOALS['distinct_false_matches'])}"))
    rows.append(("a copy against another photo's original", "", f"nearest {report['nearest_cross']}", ""))
    rows.append(("the finer confirmation of the pairs within the threshold (residual: a copy ≤ "
                 f"{COPY_RESIDUAL})", f"copies' largest {report['copy_residual_largest']:.2f}",
                 f"other pictures' smallest {report['other_residual_smallest']:.2f}",
                 f"{report['confirm_us_median'] / 1000:.0f} ms a pair (median, this build)"))
    on_bench = len(report["bench_matches"])
    rows.append((f"{BENCH_SERIES} series of 12 different whisks drawn on one bench, the camera moved a little each shot, "
                 f"{report['bench_pairs']} pairs within a series", f"{report['bench_near']} within {t}, {on_bench} of them confirmed "
                 f"(in {report['bench_series_flagged']} of {BENCH_SERIES} series)",
                 f"nearest {report['nearest_on_bench'][0][0] if report['nearest_on_bench'] else '-'}",
                 f"none: {verdict(on_bench <= GOALS['one_bench_false_matches'])}"))
    s = report.get("synthetic")
    if s:
        rate = s["pairs"] / s["all_pairs"]
        overlapping = s["listed_overlapping"] / s["listed_pairs"] if s["listed_pairs"] else 0.0
        false_rate = rate * (1 - overlapping)
        s["false_rate"] = false_rate
        within_less = sum(s["pairs_by_distance"][: t - 1]) / s["all_pairs"]
        rows.append((f"synthetic catalog: {s['images']:,} grey crops (8–60 % of a side, a quarter turn, contrast) of those photos, "
                     f"{s['all_pairs']:.1e} pairs", f"{s['pairs']:,} within {t} ({rate:.1e}); less the crops overlapping by "
                     f"IoU ≥ 0.3 ({overlapping:.0%} of the first {s['listed_pairs']:,}): {false_rate:.1e} false",
                     f"within {t - 2}: {within_less:.1e} in all",
                     f"< {GOALS['synthetic_false_rate']:.0e} false: {verdict(false_rate < GOALS['synthetic_false_rate'])}"))
    header = (f"copies of {report['originals']} photos", f"caught (≤ {t})", "largest distance", "goal")
    lines = ["| " + " | ".join(header) + " |", "| --- | --- | --- | --- |"]
    lines += ["| " + " | ".join(str(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
