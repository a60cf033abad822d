"""Browser steps of the viewer on a utensil's page, run by phone_steps.py: on the phone (touch
events through the DevTools protocol, 3×) a swipe goes to the next utensil of the list, a
pinch and a double-tap zoom up to the original's own pixels (the original then replaces the
preview) and back, nothing sticks out sideways, the swipes add no history entry, and "back"
returns to the list at the card;
the Full screen button lines up with the download link;
on the desktop a double click zooms and the page goes full screen and back.
"""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

SCALE = "return Number(document.querySelector('#viewer img').dataset.scale || 1);"
MOST = "const i = document.querySelector('#viewer img'); return Math.max(1, Number(i.getAttribute('width')) / i.clientWidth);"
CENTRE = "const b = document.querySelector('#viewer img').getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2];"


def _touch(driver, kind, points):
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": n} for n, (x, y) in enumerate(points)]})


def _gesture(driver, start, end, steps=6):
    """Fingers from `start` to `end` (lists of (x, y), one per finger), then lifted."""
    _touch(driver, "touchStart", start)
    for step in range(1, steps + 1):
        _touch(driver, "touchMove", [(a[0] + (b[0] - a[0]) * step / steps, a[1] + (b[1] - a[1]) * step / steps)
                                     for a, b in zip(start, end)])
    _touch(driver, "touchEnd", [])


def _double_tap(driver, x, y):
    for _ in range(2):
        _touch(driver, "touchStart", [(x, y)])
        _touch(driver, "touchEnd", [])


def _scrolls_sideways(driver):
    return driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth;")


def phone_viewer(daemon, phone, wait, check, shots):
    listed = daemon.get("/api/v1/utensils?sort=name&limit=500")["utensils"]
    index = next(n for n, u in enumerate(listed) if 0 < n < len(listed) - 1 and u["extension"] == "jpg" and u["width"] > 1200)
    phone.get(daemon.base + "/?sort=name")
    hrefs = [a.get_attribute("href") for a in phone.find_elements(By.CSS_SELECTOR, "#grid .card > a")]
    at_list = phone.execute_script("return navigation.currentEntry.index;")
    phone.get(hrefs[index])
    wait.until(lambda d: d.execute_script("const i = document.querySelector('#viewer img'); return i.complete && i.naturalWidth > 0;"))
    link, button = phone.execute_script(
        "return ['#viewer .download', '#viewer .fullscreen'].map(s => { const b = document.querySelector(s).getBoundingClientRect();"
        " return [b.left, b.top, b.right, b.bottom]; });")
    beside = button[1] < link[3] and button[0] >= link[2]
    under = button[1] >= link[3] and abs(button[0] - link[0]) < 1
    check("phone: Full screen sits beside the download link, or under it at the same left edge",
          beside or under, f"download {link}, Full screen {button}")
    x, y = phone.execute_script(CENTRE)

    _gesture(phone, [(x - 20, y), (x + 20, y)], [(x - 120, y), (x + 120, y)])
    pinched = phone.execute_script(SCALE)
    most = phone.execute_script(MOST)
    check("phone: a pinch zooms in, no further than the original's pixels",
          1.5 < pinched <= most + 0.01 and not _scrolls_sideways(phone), f"scale {pinched}, most {most}")
    _gesture(phone, [(x - 10, y), (x + 10, y)], [(x - 180, y), (x + 180, y)])
    _gesture(phone, [(x - 10, y), (x + 10, y)], [(x - 180, y), (x + 180, y)])
    capped = phone.execute_script(SCALE)
    sharper = wait.until(lambda d: d.execute_script(
        "const i = document.querySelector('#viewer img'); return i.currentSrc.includes('/originals/') && i.complete;"))
    check("phone: pinching on stops at the original's resolution, the original shown",
          abs(capped - most) < 0.01 and sharper, f"scale {capped}, most {most}")
    if shots:
        phone.save_screenshot(f"{shots}/phone-zoomed.png")
    _double_tap(phone, x, y)
    check("phone: a double tap zooms back out", phone.execute_script(SCALE) == 1, f"{phone.execute_script(SCALE)}")
    _double_tap(phone, x, y)
    doubled = phone.execute_script(SCALE)
    check("phone: a double tap zooms in to the original's resolution", abs(doubled - most) < 0.01, f"{doubled} vs {most}")
    _double_tap(phone, x, y)

    phone.execute_script("window.stillThisPage = true;")
    _gesture(phone, [(x + 120, y)], [(x - 120, y + 10)])
    following = hrefs[index + 1]
    arrived = wait.until(lambda d: d.current_url == following)
    check("phone: a swipe to the left goes to the next utensil of the list", arrived, phone.current_url)
    wait.until(lambda d: d.execute_script("return document.readyState === 'complete';"))
    x, y = phone.execute_script(CENTRE)
    _gesture(phone, [(x - 120, y)], [(x + 120, y)])
    back_at = wait.until(lambda d: d.current_url == hrefs[index])
    check("phone: a swipe to the right goes back to the previous", back_at, phone.current_url)
    top = phone.execute_script("return window.scrollY;")
    _gesture(phone, [(x, y - 10)], [(x + 20, y - 200)])
    # A fling goes on after the finger lifts: wait until the page rests (a tap would stop it).
    resting = [None]

    def rests(d):
        now = d.execute_script("return window.scrollY;")
        settled = now == resting[0]
        resting[0] = now
        return settled
    wait.until(rests)
    check("phone: a vertical drag scrolls the page, it is not a swipe",
          phone.current_url == hrefs[index] and resting[0] > top, f"{phone.current_url}, scrollY {top} -> {resting[0]}")
    check("phone: the swipes replaced the page in the history, adding no entry",
          phone.execute_script("return navigation.currentEntry.index;") == at_list + 1)
    phone.execute_script("window.scrollTo(0, 0);")
    phone.find_element(By.CSS_SELECTOR, "a.back").click()
    own = hrefs[index].split("/utensils/")[1].split("?")[0]
    returned = wait.until(lambda d: "sort=name" in d.current_url and "/utensils/" not in d.current_url
                          and d.execute_script("return document.getElementById('grid').dataset.revealed;") == own)
    check("phone: back returns to the list, at that utensil's card", returned, phone.current_url)


def desktop_viewer(daemon, desktop, wait, check):
    utensil = next(u for u in daemon.get("/api/v1/utensils?limit=500")["utensils"] if u["extension"] == "jpg" and u["width"] > 1600)
    desktop.get(daemon.base + f"/utensils/{utensil['id']}")
    image = desktop.find_element(By.CSS_SELECTOR, "#viewer img")
    wait.until(lambda d: d.execute_script("return arguments[0].complete;", image))
    ActionChains(desktop).double_click(image).perform()
    most = desktop.execute_script(MOST)
    zoomed = desktop.execute_script(SCALE)
    check("desktop: a double click zooms to the original's resolution", abs(zoomed - most) < 0.01, f"{zoomed} vs {most}")
    ActionChains(desktop).double_click(image).perform()
    desktop.find_element(By.CSS_SELECTOR, "#viewer .fullscreen").click()
    full = wait.until(lambda d: d.execute_script("return document.fullscreenElement && document.fullscreenElement.id;") == "viewer")
    check("desktop: Full screen shows the picture alone", full)
    desktop.find_element(By.CSS_SELECTOR, "#viewer .fullscreen").click()
    left = wait.until(lambda d: d.execute_script("return document.fullscreenElement === null;"))
    check("desktop: the same button leaves full screen", left)


def run(daemon, phone, desktop, wait, desktop_wait, check, shots):
    phone_viewer(daemon, phone, wait, check, shots)
    desktop_viewer(daemon, desktop, desktop_wait, check)
