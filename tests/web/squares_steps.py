"""Browser steps of the grid's sharpness at every density, run by browser_test.py last (they
add utensils): a 390 × 844 phone at 3× picks each card's 540 px grid square from its
`srcset` and its first page of 50 cards still loads at most 1.5 MB of images; a 1× desktop
keeps the 180 px thumbnails; a utensil without its square yet shows its thumbnail there
until `utensilctl rethumb --missing` makes it.
"""
import os
import subprocess

BUDGET = 1_500_000
# Variants of the real photos (each the same picture with bytes of its own after its end),
# so that the first page holds 50 cards of real photographs.
VARIANTS = 50

# Whether the grid's images in the viewport have all loaded.
VISIBLE = """
const shown = Array.from(document.querySelectorAll('#grid img')).filter(i => i.getBoundingClientRect().top < innerHeight);
return shown.length > 0 && shown.every(i => i.complete && i.naturalWidth > 0);
"""

# Each of them as [currentSrc, the width in pixels of the file it shows] (an image chosen from a
# `srcset` reports its width in CSS pixels, so the file is decoded again, from the cache).
SHOWN = """
const done = arguments[arguments.length - 1];
const shown = Array.from(document.querySelectorAll(arguments[0])).filter(i => i.getBoundingClientRect().top < innerHeight);
Promise.all(shown.map(i => { const probe = new Image(); probe.src = i.currentSrc;
  return probe.decode().then(() => [i.currentSrc, probe.naturalWidth]); })).then(done, e => done(String(e)));
"""

# Every image the page has finished loading, each counted by the Performance API once it
# has (so the sum is taken only when the two agree): the bytes over the wire, headers included.
IMAGE_BYTES = """
const loaded = Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).length;
const entries = performance.getEntriesByType('resource').filter(r => r.initiatorType === 'img');
if (entries.length < loaded) return null;
return {images: entries.length, bytes: entries.reduce((sum, r) => sum + r.transferSize, 0)};
"""


def _variants(daemon, photos):
    """Drops copies of `photos` (round robin) until the gallery holds at least VARIANTS."""
    have = len(daemon.names())
    for index in range(max(0, VARIANTS - have)):
        source = photos[index % len(photos)]
        with open(source, "rb") as photo:
            data = photo.read()
        with open(os.path.join(daemon.inbox, f"Variant {index:02}.jpg"), "wb") as out:
            out.write(data + f"variant {index}".encode())
    return daemon.wait_for(f"{VARIANTS} utensils", lambda: len(daemon.names()) >= VARIANTS, seconds=600)


def phone_picks_squares(daemon, browser, wait_of, check, shots):
    phone = browser(phone_width=390)
    try:
        phone.get(daemon.base + "/")
        wait_of(phone).until(lambda d: d.execute_script(VISIBLE))
        measured = wait_of(phone).until(lambda d: d.execute_script(IMAGE_BYTES))
        shown = phone.execute_async_script(SHOWN, "#grid img")
        check("phone 3×: every card in view shows its 540 px grid square (srcset)",
              shown and all("/squares/" in src and width == 540 for src, width in shown), f"{shown[:3]}")
        cards = len(phone.find_elements("css selector", "#grid .card"))
        check(f"phone 3×: the first page ({cards} cards) loads at most {BUDGET} bytes of images",
              cards >= VARIANTS and measured["bytes"] <= BUDGET, f"{measured}")
        print(f"page weight, phone 3× gallery with grid squares: {measured['images']} images, "
              f"{measured['bytes']} bytes of {cards} cards", flush=True)
        if shots:
            phone.save_screenshot(os.path.join(shots, "phone-squares.png"))
    finally:
        phone.quit()


def desktop_keeps_thumbnails(daemon, browser, wait_of, check):
    desktop = browser()
    try:
        desktop.get(daemon.base + "/")
        wait_of(desktop).until(lambda d: d.execute_script(VISIBLE))
        shown = desktop.execute_async_script(SHOWN, "#grid img")
        check("desktop 1×: every card in view keeps its 180 px thumbnail",
              shown and all("/thumbnails/" in src and width == 180 for src, width in shown), f"{shown[:3]}")
    finally:
        desktop.quit()


def fallback_then_rethumb(daemon, binaries, browser, wait_of, check):
    utensil = daemon.get("/api/v1/utensils?limit=1")["utensils"][0]
    square = os.path.join(daemon.root, "state", "squares", utensil["id"] + ".jpeg")
    os.remove(square)
    phone = browser(phone_width=390)
    try:
        card = f"#u-{utensil['id']} img"
        loaded = "const i = document.querySelector(arguments[0]); return !!i && i.complete && i.naturalWidth > 0;"
        phone.get(daemon.base + "/")
        wait_of(phone).until(lambda d: d.execute_script(loaded, card))
        [[src, width]] = phone.execute_async_script(SHOWN, card)
        check("phone 3×: a utensil without its grid square shows its thumbnail in its place",
              "/squares/" in src and width == 180, f"{src} {width}")
        made = subprocess.run(
            [os.path.join(binaries, "utensilctl"), "--socket", os.path.join(daemon.root, "control.sock"),
             "rethumb", "--missing"], capture_output=True, text=True)
        back = made.returncode == 0 and daemon.wait_for("the grid square", lambda: os.path.exists(square))
        check("utensilctl rethumb --missing makes the missing grid square", back, made.stdout + made.stderr)
        phone.get(daemon.base + "/")
        wait_of(phone).until(lambda d: d.execute_script(loaded, card))
        [[src, width]] = phone.execute_async_script(SHOWN, card)
        check("phone 3×: once made, the grid square shows (the stand-in was not kept)", width == 540, f"{src} {width}")
    finally:
        phone.quit()


def run(daemon, binaries, browser, wait_of, check, shots, photos):
    """`photos`: real photographs to make variants of; `wait_of(driver)` a patient wait."""
    if not _variants(daemon, photos):
        check(f"the daemon ingests {VARIANTS} photos", False)
        return
    phone_picks_squares(daemon, browser, wait_of, check, shots)
    desktop_keeps_thumbnails(daemon, browser, wait_of, check)
    fallback_then_rethumb(daemon, binaries, browser, wait_of, check)
