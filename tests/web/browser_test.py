#!/usr/bin/env python3
"""The web gallery in a real browser: Debian's chromium, headless, through chromedriver
(Selenium), against the real utensild with real photographs (mate-backgrounds).

Usage: browser_test.py BINARIES-FOLDER SCREENSHOT.png [DOCS-FOLDER]
With DOCS-FOLDER, the phone and desktop screenshots of the layout checks are saved there
(gallery-phone.png, gallery-desktop.png, utensil-phone.png; README links them).
Prints one line per check and closes with "N passed, M failed"; exits 1 on any failure.
"""
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

import account_steps
import package_photos
import phone_steps
import squares_steps

PASSWORD = "correct horse battery"
results = []


def patient_wait(driver):
    """A 60 s wait that polls again when the element it read belonged to a page that a form
    post or a live redraw has just replaced (a stale element is "not yet", not a failure)."""
    return WebDriverWait(driver, 60, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,))


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok    " if condition else "FAIL  ") + name + ("" if condition or not detail else f": {detail}"), flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def real_photos(count):
    """The package's `count` smallest photographs (quick to ingest), smallest first."""
    return package_photos.smallest(count)


class Daemon:
    def __init__(self, binaries, root, port):
        self.root = root
        self.inbox = os.path.join(root, "inbox")
        self.users = os.path.join(root, "web-users")
        os.makedirs(self.inbox)
        add = subprocess.run([os.path.join(binaries, "utensilctl"), "web-user", "add", "alice", "--users-file", self.users],
                             input=PASSWORD + "\n", text=True, capture_output=True)
        if add.returncode != 0:
            sys.exit("browser test: utensilctl web-user add failed: " + add.stderr)
        self.log = open(os.path.join(root, "utensild.log"), "wb")
        env = {k: v for k, v in os.environ.items() if not k.startswith("UTENSILD_") and k != "NOTIFY_SOCKET"}
        env["SYSTEMD_LOG_TARGET"] = "console"
        self.base = f"http://127.0.0.1:{port}"
        self.command = [
            os.path.join(binaries, "utensild"), "--config", "/dev/null", "--inbox", self.inbox,
            "--state-dir", os.path.join(root, "state"), "--control-socket", os.path.join(root, "control.sock"),
            "--settle-seconds", "0.2", "--web-listen", f"127.0.0.1:{port}", "--web-users-file", self.users]
        self.env = env
        self.start()

    def start(self):
        self.process = subprocess.Popen(self.command, stdout=self.log, stderr=self.log, env=self.env)

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=10) as reply:
            return json.load(reply)

    def wait_for(self, what, predicate, seconds=90):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if predicate():
                    return True
            except (OSError, urllib.error.URLError, ValueError):
                pass
            time.sleep(0.1)  # polling with a deadline
        print(f"browser test: timed out waiting for {what}; log in {self.root}/utensild.log", flush=True)
        return False

    def names(self):
        return sorted(u["name"] for u in self.get("/api/v1/utensils?limit=500")["utensils"])

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()


def post(url, data=b"", headers=None):
    request = urllib.request.Request(url, data=data, headers=headers or {}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code


def browser(phone_width=None, javascript=True):
    """A desktop Chromium (1280×900), or a phone one: `phone_width` CSS pixels wide, 844 high,
    three device pixels to one (Chromium's own mobile emulation: touch, the viewport meta tag);
    `javascript=False` for one that runs no script."""
    options = webdriver.ChromeOptions()
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    if phone_width:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": phone_width, "height": 844, "pixelRatio": 3.0, "touch": True},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                         "Chrome/120.0 Mobile Safari/537.36"})
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


# What sticks out sideways: the document's scroll width against the viewport, and (as mobile
# emulation can hide the first) every element's right edge against the viewport's width or,
# on a phone, the screen's (a headless desktop's screen is smaller than its window).
OVERFLOW_SCRIPT = """
const width = arguments[0] ? Math.min(window.innerWidth, screen.width) : window.innerWidth;
// Inside a box that scrolls or clips sideways (the phone's row of chips), what lies beyond the
// edge sticks out only if that box does.
const clipped = e => {
  for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
    if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) return a.getBoundingClientRect().right <= width + 0.5;
  }
  return false;
};
const over = Array.from(document.querySelectorAll('body *')).filter(e => {
  const box = e.getBoundingClientRect();
  return box.width > 0 && box.right > width + 0.5 && !clipped(e);
}).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' ' + Math.round(e.getBoundingClientRect().right));
return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth, screen: screen.width, over: over.slice(0, 5)};
"""

# Controls smaller than 44 × 44 CSS pixels (links inside running text are exempt).
SMALL_TARGETS_SCRIPT = """
const targets = document.querySelectorAll('button, select, input:not([type=hidden]), .chips a, .account a, .top h1 a, .more a, a.back, a.download, .card a');
return Array.from(targets).filter(e => {
  const box = e.getBoundingClientRect();
  return box.width > 0 && (box.height < 44 || box.width < 44);
}).map(e => e.tagName.toLowerCase() + ' ' + (e.name || e.textContent.trim()).slice(0, 20) + ' ' + Math.round(e.getBoundingClientRect().width) + '×' + Math.round(e.getBoundingClientRect().height));
"""


# Bytes the page cost over the network (bodies as sent): the document and every resource
# loaded so far (lazy images below the fold are not); and how many images.
WEIGHT_SCRIPT = """
const document_ = performance.getEntriesByType('navigation')[0];
const resources = performance.getEntriesByType('resource');
const images = resources.filter(r => r.initiatorType === 'img');
return {total: document_.encodedBodySize + resources.reduce((sum, r) => sum + r.encodedBodySize, 0),
        images: images.length, imageBytes: images.reduce((sum, r) => sum + r.encodedBodySize, 0)};
"""

# The thumbnails this page loaded, and what the same cards would weigh with the preview as
# their source instead (a `srcset` candidate that a 2× or 3× screen would pick).
PREVIEW_INSTEAD_SCRIPT = """
const done = arguments[arguments.length - 1];
const loaded = Array.from(document.querySelectorAll('#grid img')).filter(i => i.complete && i.naturalWidth > 0);
const size = url => fetch(url).then(r => r.arrayBuffer()).then(b => b.byteLength);
Promise.all(loaded.map(i => Promise.all([size(i.currentSrc), size(i.currentSrc.replace('/thumbnails/', '/previews/'))])))
  .then(pairs => done({cards: pairs.length, thumbnails: pairs.reduce((s, p) => s + p[0], 0),
                       previews: pairs.reduce((s, p) => s + p[1], 0)}));
"""


def weight(driver, label, weights):
    patient_wait(driver).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && "
        "Array.from(document.images).every(i => i.complete || i.loading === 'lazy');"))
    measured = driver.execute_script(WEIGHT_SCRIPT)
    weights[label] = measured
    print(f"page weight, {label}: {measured['total']} bytes, {measured['images']} images "
          f"({measured['imageBytes']} bytes)", flush=True)
    return measured


def no_overflow(driver, label, phone=True):
    seen = driver.execute_script(OVERFLOW_SCRIPT, phone)
    check(f"{label}: nothing wider than the screen", seen["scroll"] <= seen["inner"] and not seen["over"], f"{seen}")


def sign_in(driver, base, wait):
    driver.get(base + "/login")
    driver.find_element(By.NAME, "name").send_keys("alice")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form.stack button").click()
    wait.until(lambda d: "Signed in as" in d.page_source)


def layout_checks(daemon, desktop, root, docs, weights):
    """A HEIC utensil shows its preview in every browser, the gallery fits a phone
    from 320 px up (two columns, 44 px targets, alt text, focus visible) and the desktop."""
    heic = os.path.join(root, "Colander.heic")
    subprocess.run(["/usr/bin/heif-enc", "-q", "60", "-p", "preset=ultrafast", real_photos(7)[6], "-o", heic],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.copy(heic, daemon.inbox)
    if not daemon.wait_for("the HEIC utensil", lambda: "Colander" in daemon.names()):
        check("the HEIC photo becomes a utensil", False)
        return
    colander = [u for u in daemon.get("/api/v1/utensils?search=Colander")["utensils"]][0]
    check("its JSON names its preview", colander.get("preview", "").endswith(f"/previews/{colander['id']}.jpeg"),
          f"{colander}")

    for width in (390, 320):
        phone = browser(phone_width=width)
        try:
            wait = patient_wait(phone)
            label = f"phone {width} px"
            phone.get(daemon.base + "/")
            no_overflow(phone, f"{label}, gallery")
            if width == 390:
                weight(phone, "phone gallery, first page", weights)
                instead = phone.execute_async_script(PREVIEW_INSTEAD_SCRIPT)
                weights["phone gallery, its cards as previews"] = instead
                print(f"page weight, phone gallery: {instead['cards']} cards loaded {instead['thumbnails']} bytes of "
                      f"thumbnails; as previews they would be {instead['previews']} bytes", flush=True)
            sign_in(phone, daemon.base, wait)
            phone.get(daemon.base + "/")
            no_overflow(phone, f"{label}, gallery signed in")
            if width == 390:
                top = phone.execute_script("return document.getElementById('grid').getBoundingClientRect().top;")
                check(f"{label}: signed in, the photos start in the upper 60 % of the screen (one-line chips, a one-button upload)",
                      top <= 0.6 * 844, f"the grid starts {top:.0f} px down")
            columns = phone.execute_script(
                "return new Set(Array.from(document.querySelectorAll('#grid .card')).map(c => Math.round(c.getBoundingClientRect().left))).size;")
            check(f"{label}: the grid has two columns", columns == 2, f"{columns}")
            small = phone.execute_script(SMALL_TARGETS_SCRIPT)
            check(f"{label}: every control is at least 44 px", not small, f"{small}")
            missing_alt = phone.execute_script(
                "return Array.from(document.images).filter(i => !i.alt).map(i => i.src);")
            check(f"{label}: every image has alt text", not missing_alt, f"{missing_alt}")
            if width == 390 and docs:
                phone.save_screenshot(os.path.join(docs, "gallery-phone.png"))

            phone.get(daemon.base + f"/utensils/{colander['id']}")
            no_overflow(phone, f"{label}, a utensil's page")
            if width == 390:
                for utensil in daemon.get("/api/v1/utensils?limit=500")["utensils"]:
                    fresh = browser(phone_width=390)
                    try:
                        fresh.get(daemon.base + f"/utensils/{utensil['id']}")
                        measured = weight(fresh, f"phone, page of {utensil['name']}", weights)
                        measured["original"] = utensil["bytes"]
                        measured["extension"] = utensil["extension"]
                    finally:
                        fresh.quit()
            decoded = wait.until(lambda d: d.execute_script(
                "const i = document.querySelector('figure img'); return i && i.complete ? i.naturalWidth : false;"))
            source = phone.execute_script("return document.querySelector('figure img').currentSrc;")
            check(f"{label}: the HEIC utensil's page shows its preview, decoded",
                  decoded > 0 and f"/previews/{colander['id']}.jpeg" in source, f"{decoded} {source}")
            alt = phone.execute_script("return document.querySelector('figure img').alt;")
            check(f"{label}: the preview's alt text is the name", alt == "Colander", alt)
            download = phone.find_element(By.CSS_SELECTOR, "a.download").get_attribute("href")
            check(f"{label}: the page links the original for download", download.split("?")[0].endswith(
                f"/originals/{colander['id']}.heic"), download)
            small = phone.execute_script(SMALL_TARGETS_SCRIPT)
            check(f"{label}: every control on the utensil's page is at least 44 px", not small, f"{small}")
            if width == 390 and docs:
                phone.save_screenshot(os.path.join(docs, "utensil-phone.png"))
            phone.get(daemon.base + "/trash")
            no_overflow(phone, f"{label}, the trash")
        finally:
            phone.quit()

    fresh = browser()
    try:
        fresh.get(daemon.base + "/")
        weight(fresh, "desktop gallery, first page", weights)
    finally:
        fresh.quit()

    # The keyboard alone: Tab reaches the search box and the cards, each with a visible outline.
    desktop.get(daemon.base + "/")
    no_overflow(desktop, "desktop 1280 px, gallery", phone=False)
    if docs:
        desktop.save_screenshot(os.path.join(docs, "gallery-desktop.png"))
    outlines = []
    for _ in range(8):
        ActionChains(desktop).send_keys(Keys.TAB).perform()
        outlines.append(desktop.execute_script(
            "const e = document.activeElement; const s = getComputedStyle(e);"
            "return [e.tagName.toLowerCase(), s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2];"))
    reached = [tag for tag, _ in outlines]
    check("desktop: Tab moves through the controls, each with a visible focus outline",
          "input" in reached and all(visible for _, visible in outlines), f"{outlines}")
    desktop.get(daemon.base + f"/utensils/{colander['id']}")
    no_overflow(desktop, "desktop 1280 px, a utensil's page", phone=False)
    decoded = patient_wait(desktop).until(lambda d: d.execute_script(
        "const i = document.querySelector('figure img'); return i && i.complete ? i.naturalWidth : false;"))
    check("desktop: the HEIC utensil's preview decodes", decoded > 0, f"{decoded}")


def main():
    binaries, screenshot = sys.argv[1], sys.argv[2]
    docs = sys.argv[3] if len(sys.argv) > 3 else None
    weights = {}
    root = tempfile.mkdtemp(prefix="utensild-browser-")
    photos = real_photos(6)
    daemon = Daemon(binaries, root, free_port())
    evil_port = free_port()
    driver = None
    try:
        for photo in photos[:3]:
            shutil.copy(photo, daemon.inbox)
        os.makedirs(os.path.join(daemon.inbox, "Flowers"))
        shutil.copy(photos[3], os.path.join(daemon.inbox, "Flowers"))
        flower = os.path.splitext(os.path.basename(photos[3]))[0]
        if not daemon.wait_for("4 utensils", lambda: len(daemon.names()) == 4):
            check("the daemon ingests the photos", False)
            return
        driver = browser()
        wait = patient_wait(driver)

        # The grid shows every utensil, and each thumbnail really decodes.
        driver.get(daemon.base + "/")
        cards = driver.find_elements(By.CSS_SELECTOR, "#grid .card")
        check("the grid shows every utensil", len(cards) == 4, f"{len(cards)} cards")
        decoded = wait.until(lambda d: d.execute_script(
            "const images = Array.from(document.querySelectorAll('#grid img'));"
            "return images.every(i => i.complete) ? images.map(i => i.naturalWidth) : false;"))
        check("every thumbnail decodes at 180 pixels", decoded == [180] * 4, f"{decoded}")
        names = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#grid .name")]
        check("names are shown under the thumbnails", sorted(names) == daemon.names(), f"{names}")

        # Search narrows it (case-insensitive, on part of a name).
        wanted = daemon.names()[0]
        box = driver.find_element(By.NAME, "search")
        box.send_keys(wanted[:4].upper())
        box.submit()
        wait.until(lambda d: "search=" in d.current_url)
        found = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#grid .name")]
        check("search narrows the grid", wanted in found and len(found) < 4, f"{found}")

        # A category chip narrows it to that category.
        driver.get(daemon.base + "/")
        driver.find_element(By.CSS_SELECTOR, '.chips a[data-category="Flowers"]').click()
        wait.until(lambda d: "category=Flowers" in d.current_url)
        found = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#grid .name")]
        check("a category chip narrows the grid", found == [flower], f"{found}")

        # A photo copied into the inbox appears in the open page without a reload; a bad file
        # shows its rejection message.
        driver.get(daemon.base + "/")
        driver.execute_script("window.stillThisPage = true;")
        shutil.copy(photos[4], daemon.inbox)
        new_name = os.path.splitext(os.path.basename(photos[4]))[0]
        appeared = wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#grid .card")) == 5)
        check("a new photo appears without a reload",
              appeared and driver.execute_script("return window.stillThisPage === true;")
              and new_name in driver.find_element(By.ID, "grid").text)
        with open(os.path.join(daemon.inbox, "Broken.jpg"), "wb") as broken:
            broken.write(b"this is not a photograph")
        shown = wait.until(lambda d: "Broken.jpg was rejected" in d.find_element(By.ID, "tray-latest").text)
        driver.find_element(By.ID, "tray-toggle").click()
        news = driver.find_element(By.ID, "news").text
        check("a rejection shows with its message", shown and "JPEG" in news, news)
        driver.find_element(By.ID, "tray-toggle").click()

        # The page stays open while the daemon restarts and a photo is dropped meanwhile: the
        # browser reconnects with the last event's id and is sent what it missed.
        daemon.stop()
        missed = real_photos(8)[7]
        shutil.copy(missed, daemon.inbox)
        missed_name = os.path.splitext(os.path.basename(missed))[0]
        daemon.start()
        caught_up = wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#grid .card")) == 6)
        check("a page left open across a restart shows what was dropped meanwhile",
              caught_up and driver.execute_script("return window.stillThisPage === true;")
              and missed_name in driver.find_element(By.ID, "grid").text)
        driver.save_screenshot(screenshot)

        # Without a session, changes are refused; and a cross-site form post is refused.
        some_id = daemon.get("/api/v1/utensils?limit=1")["utensils"][0]["id"]
        status = post(daemon.base + f"/utensils/{some_id}/rename", b"name=Hacked")
        check("a rename without a session gets 401", status == 401, f"{status}")
        status = post(daemon.base + "/api/v1/uploads", b"--x--\r\n", {"Content-Type": "multipart/form-data; boundary=x"})
        check("an upload without a session gets 401", status == 401, f"{status}")

        # Sign in, then upload a good photo and a bad file through the page.
        driver.get(daemon.base + "/login")
        driver.find_element(By.NAME, "name").send_keys("alice")
        driver.find_element(By.NAME, "password").send_keys(PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "form.stack button").click()
        wait.until(lambda d: "Signed in as" in d.page_source)
        check("signing in works", "Signed in as" in driver.page_source)
        upload_name = "Uploaded " + os.path.basename(photos[5])
        upload_path = os.path.join(root, upload_name)
        shutil.copy(photos[5], upload_path)
        bad_path = os.path.join(root, "Not a photo.png")
        with open(bad_path, "wb") as bad:
            bad.write(b"plain text, not a PNG")
        driver.find_element(By.ID, "upload-files").send_keys(upload_path + "\n" + bad_path)
        wait.until(lambda d: "added as" in d.find_element(By.ID, "uploads").text
                   and "rejected:" in d.find_element(By.ID, "uploads").text)
        uploads = driver.find_element(By.ID, "uploads").text
        check("an upload becomes a utensil, shown on the page", "added as Uploaded" in uploads, uploads)
        check("a bad upload shows its rejection message", "rejected:" in uploads and "PNG" in uploads, uploads)
        check("the uploaded utensil is in the catalog",
              daemon.wait_for("the upload", lambda: os.path.splitext(upload_name)[0] in daemon.names()))
        uploaded = [u for u in daemon.get("/api/v1/utensils?limit=500")["utensils"]
                    if u["name"] == os.path.splitext(upload_name)[0]]
        check("its addedBy is the signed-in user", uploaded and uploaded[0].get("addedBy") == "alice", f"{uploaded}")

        # On its page: change the category; delete it; restore it from the trash page.
        if uploaded:
            uploaded_id, title = uploaded[0]["id"], uploaded[0]["name"]

            def category():
                reply = daemon.get(f"/api/v1/utensils/{uploaded_id}")
                return reply.get("utensil", reply).get("category")

            driver.get(daemon.base + f"/utensils/{uploaded_id}")
            field = driver.find_element(By.NAME, "category")
            field.clear()
            field.send_keys("Kitchen drawer")
            field.submit()
            check("its page changes the category",
                  daemon.wait_for("the category change", lambda: category() == "Kitchen drawer"))
            driver.get(daemon.base + f"/utensils/{uploaded_id}")
            driver.find_element(By.CSS_SELECTOR, f'form[action="/utensils/{uploaded_id}/delete"] button').click()
            check("its page deletes it into the trash",
                  daemon.wait_for("the delete", lambda: title not in daemon.names()))
            driver.get(daemon.base + "/trash")
            check("the trash page lists it", title in driver.find_element(By.TAG_NAME, "main").text)
            driver.find_element(By.CSS_SELECTOR, f'form[action="/utensils/{uploaded_id}/restore"] button').click()
            check("the trash page restores it", daemon.wait_for("the restore", lambda: title in daemon.names()))

        # A form on another site posting to the gallery, in the signed-in browser: refused.
        evil_page = (f'<form id="f" method="post" action="{daemon.base}/utensils/{some_id}/rename">'
                     '<input name="name" value="Hacked"></form><p>evil</p>').encode()

        class Evil(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(evil_page)

            def log_message(self, *_):
                pass

        evil = http.server.HTTPServer(("127.0.0.1", evil_port), Evil)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        driver.get(f"http://localhost:{evil_port}/")
        driver.execute_script("document.getElementById('f').submit();")
        wait.until(lambda d: d.current_url.startswith(daemon.base))
        refused = "another site" in driver.page_source
        untouched = "Hacked" not in daemon.names()
        check("a cross-site form post is refused", refused and untouched, driver.page_source[:300])
        evil.shutdown()

        layout_checks(daemon, driver, root, docs, weights)
        phone_steps.run(daemon, browser, patient_wait, sign_in, check, os.path.dirname(screenshot), real_photos(9)[8])
        # Favorites, a category renamed, the password changed, signing out: last (the password
        # changes), in a desktop browser of their own, as the layout checks used this one.
        account = browser()
        try:
            account_wait = patient_wait(account)
            sign_in(account, daemon.base, account_wait)
            account_steps.run(account, account_wait, daemon, check, PASSWORD, "Flowers")
        finally:
            account.quit()
        # The grid squares at every density: last, as they add utensils.
        squares_steps.run(daemon, binaries, browser, patient_wait, check, os.path.dirname(screenshot), real_photos(12))
    finally:
        if driver is not None:
            driver.quit()
        daemon.stop()
        if all(results):
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"browser test: the daemon's folder is kept in {root}", flush=True)
    if weights:
        with open(os.path.join(os.path.dirname(screenshot), "web-page-weights.json"), "w") as out:
            json.dump(weights, out, indent=1, sort_keys=True)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
