"""Browser steps of the installable gallery, run by phone_steps.py on the signed-in phone: the
manifest and its icons, a photo shared from the phone's share sheet (the share target's
multipart POST, as the browser sends it) landing in the inbox, straight to the daemon and,
installed, through the service worker and the page's upload with its progress bar; and the
service worker keeping the shell and the thumbnails (the gallery opens while the daemon is down)
and no more than its last 50 pages.
"""
import http.client
import os
import shutil
import urllib.parse
import uuid

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By

import package_photos


MANIFEST = """
const done = arguments[arguments.length - 1];
fetch('/manifest.webmanifest').then(r => r.json()).then(manifest => Promise.all(manifest.icons.map(icon =>
  new Promise(resolve => { const i = new Image(); i.onload = () => resolve([icon.sizes, i.naturalWidth + 'x' + i.naturalHeight]);
                           i.onerror = () => resolve([icon.sizes, 'broken']); i.src = icon.src; })))
  .then(icons => done({manifest: manifest, icons: icons}))).catch(e => done({error: String(e)}));
"""

CONTROLLED = """
const done = arguments[arguments.length - 1];
if (!navigator.serviceWorker) { done(false); return; }
navigator.serviceWorker.ready.then(() => done(!!navigator.serviceWorker.controller));
"""

# Run in every new document while a shared photo goes through: notes whether a progress bar
# was ever put on the page (an upload of a small photo may end before anyone could look).
WATCH_PROGRESS = """
new MutationObserver(function (changes) {
  for (const change of changes) for (const node of change.addedNodes)
    if (node.nodeType === 1 && (node.matches('progress') || node.querySelector('progress'))) window.sawProgress = true;
}).observe(document, {childList: true, subtree: true});
"""

# Fills the service worker's cache of pages with more than it keeps, each an older visit.
FILL_PAGES = """
const done = arguments[arguments.length - 1];
caches.open('utensild-pages').then(cache => Promise.all(Array.from({length: arguments[0]}, (_, i) =>
  cache.put('/?search=planted-' + i, new Response('planted', {headers: {'Content-Type': 'text/html'}})))))
  .then(() => done(true)).catch(e => done(String(e)));
"""

PAGES = """
const done = arguments[arguments.length - 1];
caches.open('utensild-pages').then(cache => cache.keys()).then(keys => done(keys.map(k => new URL(k.url).pathname + new URL(k.url).search)))
  .catch(e => done([String(e)]));
"""

KEPT = """
const done = arguments[arguments.length - 1];
const thumbnail = document.querySelector('#grid img').currentSrc;
Promise.all([caches.match(thumbnail), caches.match('/static/gallery.css?v=' + arguments[0])])
  .then(found => done(found.map(f => !!f)));
"""


def manifest(daemon, phone, check):
    phone.get(daemon.base + "/")
    found = phone.execute_async_script(MANIFEST)
    share = found.get("manifest", {}).get("share_target", {})
    check("phone: the manifest installs the gallery, its icons decode at their sizes",
          found.get("manifest", {}).get("display") == "standalone"
          and all(sizes == shown for sizes, shown in found.get("icons", [])) and len(found.get("icons", [])) == 2,
          f"{found.get('icons')} {found.get('error')}")
    check("phone: its share target posts photos to /share as multipart form data",
          share.get("action") == "/share" and share.get("enctype") == "multipart/form-data"
          and share.get("params", {}).get("files", [{}])[0].get("name") == "files", f"{share}")


def offline(daemon, phone, wait, check):
    phone.get(daemon.base + "/")
    wait.until(lambda d: d.execute_async_script(CONTROLLED) or d.refresh())
    phone.get(daemon.base + "/")
    wait.until(lambda d: d.execute_script(
        "return Array.from(document.querySelectorAll('#grid img')).slice(0, 4).every(i => i.complete && i.naturalWidth > 0);"))
    version = phone.execute_script("return document.querySelector('link[rel=stylesheet]').href.split('v=')[1];")
    kept = phone.execute_async_script(KEPT, version)
    check("phone: the service worker keeps the shell and the thumbnails shown", kept == [True, True], f"{kept}")
    names = [c.text for c in phone.find_elements(By.CSS_SELECTOR, "#grid .name")][:4]
    daemon.stop()
    try:
        phone.get(daemon.base + "/")
        shown = [c.text for c in phone.find_elements(By.CSS_SELECTOR, "#grid .name")][:4]
        decoded = phone.execute_script(
            "return Array.from(document.querySelectorAll('#grid img')).slice(0, 4).map(i => i.complete && i.naturalWidth);")
        check("phone: with the daemon down, the installed gallery still opens with its thumbnails",
              shown == names and all(decoded), f"{shown} vs {names}, {decoded}")
    finally:
        daemon.start()
        daemon.wait_for("the daemon back", lambda: daemon.get("/healthz") is not None)


def pages_kept(daemon, phone, wait, check):
    """The service worker keeps a bounded number of pages: with more kept than that, a visit
    trims the oldest."""
    phone.get(daemon.base + "/")
    wait.until(lambda d: d.execute_async_script(CONTROLLED) or d.refresh())
    filled = phone.execute_async_script(FILL_PAGES, 80)
    phone.get(daemon.base + "/?sort=name")
    seen = []

    def trimmed(driver):
        seen[:] = driver.execute_async_script(PAGES)
        return "/?sort=name" in seen and len(seen) <= 50

    try:
        wait.until(trimmed)
    except TimeoutException:
        pass
    check("phone: the service worker keeps the last 50 pages visited, the one visited now among them",
          filled is True and "/?sort=name" in seen and len(seen) == 50 and "/?search=planted-0" not in seen,
          f"{filled} {len(seen)} {seen[:3]}")


def share(daemon, phone, wait, check, photo):
    """The POST a phone's browser makes for the share target: multipart, the field `files`,
    the session's cookie, no Origin (it comes from the system's share sheet)."""
    boundary = uuid.uuid4().hex
    with open(photo, "rb") as source:
        data = source.read()
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"Shared pan.jpg\"\r\n"
            "Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    cookie = "utensild_session=" + phone.get_cookie("utensild_session")["value"]
    address = urllib.parse.urlparse(daemon.base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    connection.request("POST", "/share", body=body, headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "Cookie": cookie, "Sec-Fetch-Site": "none"})
    reply = connection.getresponse()
    location = reply.getheader("Location")
    reply.read()
    connection.close()
    check("phone: a photo shared from the share sheet is taken, then the gallery",
          reply.status == 303 and location == "/?shared=1&refused=0", f"{reply.status} {location}")
    phone.get(daemon.base + (location or "/"))
    said = phone.find_elements(By.CSS_SELECTOR, ".shared")
    added = daemon.wait_for("the shared photo", lambda: "Shared pan" in daemon.names())
    by = [u.get("addedBy") for u in daemon.get("/api/v1/utensils?search=Shared%20pan")["utensils"]]
    check("phone: the shared photo lands in the inbox and becomes a utensil of the signed-in user",
          said and "1 photo sent to the inbox" in said[0].text and added and by == ["alice"], f"{by}")


def through_the_worker(daemon, phone, wait, check, photo):
    """Installed, the share sheet's POST reaches the service worker, which keeps the photos
    for the gallery; the gallery uploads them with a progress bar each."""
    phone.get(daemon.base + "/")
    wait.until(lambda d: d.execute_async_script(CONTROLLED) or d.refresh())
    phone.execute_script(
        "const form = document.createElement('form'); form.id = 'share-sheet'; form.method = 'post'; form.action = '/share';"
        "form.enctype = 'multipart/form-data'; const input = document.createElement('input'); input.type = 'file';"
        "input.name = 'files'; input.id = 'share-file'; form.append(input); document.body.append(form);")
    phone.find_element(By.ID, "share-file").send_keys(photo)
    watching = phone.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_PROGRESS})
    phone.execute_script("document.getElementById('share-sheet').submit();")
    wait.until(lambda d: d.current_url.endswith("/") and d.find_elements(By.CSS_SELECTOR, "#uploads li"))
    added = wait.until(lambda d: "added as Shared whisk" in d.find_element(By.ID, "uploads").text)
    shown = phone.execute_script("return window.sawProgress === true;")
    phone.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": watching["identifier"]})
    check("phone: installed, a shared photo goes through the worker to the page's upload, a progress bar, then its outcome",
          added and shown and "Shared whisk" in daemon.names(), f"progress bar shown: {shown}; " + phone.find_element(By.ID, "uploads").text)


def _unused_photo(index):
    """A real photograph no other step drops (the eleventh or twelfth smallest)."""
    return package_photos.smallest(index + 1)[index]


def run(daemon, phone, wait, check):
    """The manifest and a share; the daemon is then stopped and started again (for the
    offline check), which ends every session: last, before steps that sign in afresh."""
    manifest(daemon, phone, check)
    share(daemon, phone, wait, check, _unused_photo(10))
    shared = os.path.join(os.path.dirname(daemon.inbox), "Shared whisk.jpg")
    shutil.copy(_unused_photo(11), shared)
    through_the_worker(daemon, phone, wait, check, shared)
    offline(daemon, phone, wait, check)
    pages_kept(daemon, phone, wait, check)
