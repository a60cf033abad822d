#!/usr/bin/env python3
"""The web gallery in a real browser: Debian's chromium, headless, through chromedriver
(Selenium), against the real utensild with real photographs (mate-backgrounds).

Usage: browser_test.py BINARIES-FOLDER SCREENSHOT.png
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
from selenium.webdriver.support.ui import WebDriverWait

import account_steps

PHOTOS = "/usr/share/backgrounds/mate/nature"
PASSWORD = "correct horse battery"
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok    " if condition else "FAIL  ") + name + ("" if condition or not detail else f": {detail}"), flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def real_photos(count):
    """The smallest real photographs of the package (quick to ingest), largest first."""
    names = sorted((n for n in os.listdir(PHOTOS) if n.lower().endswith(".jpg")),
                   key=lambda n: os.path.getsize(os.path.join(PHOTOS, n)))
    if len(names) < count:
        sys.exit(f"browser test: fewer than {count} photos in {PHOTOS} (install mate-backgrounds: make test-deps)")
    return [os.path.join(PHOTOS, n) for n in names[:count]]


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
        self.process = subprocess.Popen(
            [os.path.join(binaries, "utensild"), "--config", "/dev/null", "--inbox", self.inbox,
             "--state-dir", os.path.join(root, "state"), "--control-socket", os.path.join(root, "control.sock"),
             "--settle-seconds", "0.2", "--web-listen", f"127.0.0.1:{port}", "--web-users-file", self.users],
            stdout=self.log, stderr=self.log, env=env)

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


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def main():
    binaries, screenshot = sys.argv[1], sys.argv[2]
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
        wait = WebDriverWait(driver, 60, poll_frequency=0.1)

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
        shown = wait.until(lambda d: "Broken.jpg was rejected" in d.find_element(By.ID, "news").text)
        news = driver.find_element(By.ID, "news").text
        check("a rejection shows with its message", shown and "JPEG" in news, news)
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

        # Favorites, a category renamed, the password changed, signing out (account_steps.py).
        account_steps.run(driver, wait, daemon, check, PASSWORD, "Flowers")
    finally:
        if driver is not None:
            driver.quit()
        daemon.stop()
        if all(results):
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"browser test: the daemon's folder is kept in {root}", flush=True)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
