"""Browser steps of the everyday flow on a phone, run by browser_test.py: the notices tray
stays one line above the grid however many drops are rejected, and lists every rejection until
dismissed; a new category folder gets its chip live; the upload box offers a phone's camera and
library; times show in the viewer's zone; a missing page is written for people; a utensil's
page leads to its neighbours in the list it was opened from, and back; and without
JavaScript the pages still read (UTC times, no tray).
"""
import datetime
import os
import shutil
import uuid
import zoneinfo

import app_steps
import axe_steps
import in_place_steps
import scroll_steps
import viewer_steps

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

STREAM_OPEN = "return document.getElementById('grid').dataset.stream === 'open';"
GRID_TOP = "return document.getElementById('grid').getBoundingClientRect().top + window.scrollY;"
# One line of the tray: its 44 px bar and the space below it.
ONE_LINE = 60


def _toggle_text(driver):
    return driver.find_element(By.ID, "tray-toggle").get_attribute("textContent")


def tray(daemon, phone, wait, check, shots):
    phone.get(daemon.base + "/")
    wait.until(lambda d: d.execute_script(STREAM_OPEN))
    before = phone.execute_script(GRID_TOP)
    check("phone: without notices the tray takes no room", not phone.find_element(By.ID, "tray").is_displayed())
    count = 12
    for index in range(count):
        with open(os.path.join(daemon.inbox, f"Bulk {index:02}.jpg"), "wb") as bad:
            bad.write(b"not a photograph either")
    shown = wait.until(lambda d: _toggle_text(d).endswith(f"{count} rejected"))
    after = phone.execute_script(GRID_TOP)
    check(f"phone: {count} rejections move the grid down one line at most",
          shown and after - before <= ONE_LINE, f"{before} -> {after}")
    latest = phone.find_element(By.ID, "tray-latest").text
    check("phone: the tray's line shows the newest rejection", "Bulk" in latest and "was rejected" in latest, latest)
    lines = phone.execute_script(
        "const bar = document.querySelector('.tray-bar'); return bar.getBoundingClientRect().height;")
    check("phone: the tray is one line", lines <= 50, f"{lines} px")

    phone.find_element(By.ID, "tray-toggle").click()
    items = wait.until(lambda d: d.find_element(By.ID, "tray-panel").is_displayed()
                       and d.find_elements(By.CSS_SELECTOR, "#news li"))
    texts = [item.text for item in items]
    check("phone: the panel lists every rejection with its message",
          len(texts) == count and all("was rejected" in t and "JPEG" in t for t in texts), f"{texts[:3]} … {len(texts)}")
    check("phone: the open panel covers the grid instead of pushing it",
          phone.execute_script(GRID_TOP) == after, f"{phone.execute_script(GRID_TOP)} vs {after}")
    expanded = phone.find_element(By.ID, "tray-toggle").get_attribute("aria-expanded")
    check("phone: the tray's button says it is expanded", expanded == "true", expanded)
    if shots:
        phone.save_screenshot(os.path.join(shots, "phone-notices.png"))

    phone.find_element(By.CSS_SELECTOR, "#news li .dismiss").click()
    dismissed = wait.until(lambda d: _toggle_text(d).endswith(f"{count - 1} rejected"))
    check("phone: a dismissed rejection leaves the tray", dismissed and len(
        phone.find_elements(By.CSS_SELECTOR, "#news li")) == count - 1)
    phone.get(daemon.base + "/")
    kept = wait.until(lambda d: _toggle_text(d).endswith(f"{count - 1} rejected"))
    check("phone: the others stay until dismissed, across a reload", kept, _toggle_text(phone))
    phone.find_element(By.ID, "tray-toggle").click()
    phone.find_element(By.ID, "tray-clear").click()
    gone = wait.until(lambda d: not d.find_element(By.ID, "tray").is_displayed())
    check("phone: Dismiss all empties the tray and the grid moves back",
          gone and phone.execute_script(GRID_TOP) == before, f"{phone.execute_script(GRID_TOP)} vs {before}")


def live_chip(daemon, phone, wait, check, photo):
    phone.get(daemon.base + "/")
    wait.until(lambda d: d.execute_script(STREAM_OPEN))
    folder = os.path.join(daemon.inbox, "Whisks")
    os.makedirs(folder)
    shutil.copy(photo, os.path.join(folder, "Balloon whisk.jpg"))
    chip = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.chips a[data-category="Whisks"]'))
    # textContent: on a phone the chip may lie beyond the edge of the row, which scrolls sideways.
    count = chip[0].find_element(By.CLASS_NAME, "count").get_attribute("textContent") if chip else ""
    check("phone: a new category folder gets its chip without a reload", chip and count == "1", count)
    latest = phone.find_element(By.ID, "tray-latest").text
    check("phone: the tray's line tells of the new utensil", "Balloon whisk was added." in latest, latest)
    phone.get(daemon.base + "/?category=Whisks")
    seen = phone.execute_script(
        "const c = document.querySelector('.chips a.chosen'), r = document.getElementById('chips');"
        "return [c.getBoundingClientRect().left, c.getBoundingClientRect().right, window.innerWidth, r.scrollWidth > r.clientWidth];")
    check("phone: a category's view shows its chosen chip, even one beyond the edge of the row",
          seen[0] >= 0 and seen[1] <= seen[2], f"{seen}")


def upload_box(phone, desktop, check):
    coarse = phone.execute_script("return matchMedia('(pointer: coarse)').matches;")
    picker = phone.find_element(By.ID, "upload-files")
    label = phone.find_element(By.CSS_SELECTOR, "#upload-form label").text
    hint = phone.find_element(By.CSS_SELECTOR, ".upload .hint")
    check("phone: the upload box offers the camera and the library",
          coarse and picker.get_attribute("accept") == "image/*" and "Take a photo or choose from your library" in label
          and not hint.is_displayed(), f"coarse {coarse}, {picker.get_attribute('accept')}, {label!r}")
    label = desktop.find_element(By.CSS_SELECTOR, "#upload-form label").text
    hint = desktop.find_element(By.CSS_SELECTOR, ".upload .hint")
    check("desktop: the upload box says photos can be dropped anywhere",
          label.startswith("Add photos") and hint.is_displayed() and "drop photos anywhere" in hint.text, label)


def local_time(daemon, phone, check, utensil_id):
    phone.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Tokyo"})
    phone.get(daemon.base + f"/utensils/{utensil_id}")
    shown = phone.execute_script(
        "const t = document.querySelector('time'); return [t.getAttribute('datetime'), t.textContent, t.title];")
    wire, text, title = shown
    tokyo = datetime.datetime.fromisoformat(wire.replace("Z", "+00:00")).astimezone(zoneinfo.ZoneInfo("Asia/Tokyo"))
    hour12 = str(tokyo.hour % 12 or 12)
    clock = {f"{hour12}:{tokyo.minute:02d}", f"{tokyo.hour:02d}:{tokyo.minute:02d}"}
    check("phone: a time shows in the viewer's zone, UTC in its title",
          any(c in text for c in clock) and "UTC" not in text and title.endswith("UTC"), f"{shown} {clock}")


def missing_page(daemon, phone, check):
    phone.get(daemon.base + f"/utensils/{str(uuid.uuid4()).upper()}")
    body = phone.find_element(By.TAG_NAME, "body").text
    links = [a.get_attribute("href") for a in phone.find_elements(By.CSS_SELECTOR, "header a")]
    check("phone: a missing utensil's page is for people, with the header's links",
          "No such utensil" in body and "`" not in body and "utensilctl" not in body
          and any(h.endswith("/trash") for h in links) and any(h.endswith("/account") for h in links),
          f"{body[:200]!r} {links}")


def viewer(daemon, desktop, check):
    """Choosing "By name" applies it at once; from the gallery sorted so, a card's page links its neighbours in that order, the
    right arrow key goes to the next, and "back" returns to the same list at that card."""
    desktop.get(daemon.base + "/")
    Select(desktop.find_element(By.CSS_SELECTOR, '.search select[name="sort"]')).select_by_value("name")
    ordered = WebDriverWait(desktop, 30).until(lambda d: "sort=name" in d.current_url)
    check("desktop: choosing an order applies it without pressing Search", ordered, desktop.current_url)
    cards = [a.get_attribute("href") for a in desktop.find_elements(By.CSS_SELECTOR, "#grid .card > a")]
    desktop.get(cards[1])
    prev = desktop.find_element(By.CSS_SELECTOR, 'a[rel="prev"]').get_attribute("href")
    following = desktop.find_element(By.CSS_SELECTOR, 'a[rel="next"]').get_attribute("href")
    check("desktop: a utensil's page links its previous and next in the list's order",
          prev == cards[0] and following == cards[2] and "sort=name" in following, f"{prev} {following} {cards[:3]}")
    ActionChains(desktop).send_keys(Keys.ARROW_RIGHT).perform()
    moved = WebDriverWait(desktop, 30).until(lambda d: d.current_url == cards[2])
    check("desktop: the right arrow key goes to the next", moved, desktop.current_url)
    desktop.find_element(By.CSS_SELECTOR, "a.back").click()
    third = cards[2].split("/utensils/")[1].split("?")[0]
    back = WebDriverWait(desktop, 30).until(lambda d: "sort=name" in d.current_url and "/utensils/" not in d.current_url
                                            and d.execute_script("return document.getElementById('grid').dataset.revealed;") == third)
    check("desktop: back returns to the same list, at that utensil", back, desktop.current_url)


def undo_delete(daemon, desktop, check):
    """Delete from a utensil's page, then the Undo it offers: back from the trash."""
    target = daemon.get("/api/v1/utensils?limit=1")["utensils"][0]
    desktop.get(daemon.base + f"/utensils/{target['id']}")
    desktop.find_element(By.CSS_SELECTOR, f'form[action="/utensils/{target["id"]}/delete"] button').click()
    offered = WebDriverWait(desktop, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".undo button"))
    check("desktop: a delete offers an Undo",
          offered and target["name"] + " is in the trash." in desktop.find_element(By.CLASS_NAME, "undo").text
          and target["name"] not in daemon.names())
    desktop.find_element(By.CSS_SELECTOR, ".undo button").click()
    check("desktop: Undo brings it back from the trash",
          daemon.wait_for("the undo", lambda: target["name"] in daemon.names()))


def without_javascript(daemon, browser, check, utensil_id):
    plain = browser(javascript=False)
    try:
        plain.get(daemon.base + f"/utensils/{utensil_id}")
        text = plain.find_element(By.TAG_NAME, "time").text
        check("without JavaScript: times stay in UTC, labelled", text.endswith(" UTC"), text)
        plain.get(daemon.base + "/")
        cards = plain.find_elements(By.CSS_SELECTOR, "#grid .card")
        check("without JavaScript: the gallery reads, with no tray", cards
              and not plain.find_element(By.ID, "tray").is_displayed())
    finally:
        plain.quit()


def run(daemon, browser, patient_wait, sign_in, check, shots, photo):
    """`browser(phone_width=None, javascript=True)` makes a Chromium; `photo` is one not dropped yet."""
    utensil_id = daemon.get("/api/v1/utensils?limit=1")["utensils"][0]["id"]
    phone = browser(phone_width=390)
    desktop = browser()
    try:
        wait = patient_wait(phone)
        tray(daemon, phone, wait, check, shots)
        live_chip(daemon, phone, wait, check, photo)
        sign_in(phone, daemon.base, wait)
        sign_in(desktop, daemon.base, patient_wait(desktop))
        phone.get(daemon.base + "/")
        desktop.get(daemon.base + "/")
        upload_box(phone, desktop, check)
        in_place_steps.run(daemon, phone, desktop, wait, patient_wait(desktop), check, shots)
        scroll_steps.run(daemon, phone, browser, wait, check, shots)
        viewer_steps.run(daemon, phone, desktop, wait, patient_wait(desktop), check, shots)
        local_time(daemon, phone, check, utensil_id)
        missing_page(daemon, phone, check)
        viewer(daemon, desktop, check)
        undo_delete(daemon, desktop, check)
        axe_steps.run(daemon, phone, desktop, check, shots)
        app_steps.run(daemon, phone, wait, check)
    finally:
        phone.quit()
        desktop.quit()
    without_javascript(daemon, browser, check, utensil_id)
