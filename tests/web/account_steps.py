"""Browser steps of favorites, categories and accounts, run by browser_test.py in its signed-in browser:
star and unstar a utensil, rename a category (the chips of an open page follow live), change
the password (another session ends, this one stays), sign out from the header.
"""
import http.client
import os
import shutil
import urllib.parse

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By

import package_photos


def _request(daemon, method, path, body=b"", cookie=None):
    """(status, headers, body) of one request, redirects not followed."""
    address = urllib.parse.urlparse(daemon.base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": daemon.base}
    if cookie:
        headers["Cookie"] = cookie
    connection.request(method, path, body=body, headers=headers)
    reply = connection.getresponse()
    result = reply.status, dict(reply.getheaders()), reply.read().decode("utf-8", "replace")
    connection.close()
    return result


# Whether the service worker keeps a copy of the page at the path given.
KEPT_PAGE = """
const done = arguments[arguments.length - 1];
caches.open('utensild-pages').then(cache => cache.match(arguments[0], {ignoreVary: true, ignoreSearch: true}))
  .then(found => done(!!found)).catch(() => done(false));
"""


def _wait_for(wait, condition):
    """True once `condition` holds, False when the wait's deadline passes first."""
    try:
        wait.until(condition)
        return True
    except TimeoutException:
        return False


def _sign_in(daemon, password):
    form = urllib.parse.urlencode({"name": "alice", "password": password}).encode()
    status, headers, _ = _request(daemon, "POST", "/login", form)
    cookie = headers.get("Set-Cookie", "").split(";")[0]
    return cookie if status == 303 and cookie else None


def _signed_in(daemon, cookie):
    return "Signed in as" in _request(daemon, "GET", "/", cookie=cookie)[2]


def _settled(wait, read, expected):
    """`read()` once it equals `expected`, or its last value when the wait runs out (the caller
    checks it and prints it); a page still being replaced is read again."""
    last = [None]

    def matches(_):
        last[0] = read()
        return last[0] == expected
    try:
        wait.until(matches)
    except TimeoutException:
        pass
    return last[0]


def _unused_photo():
    """A real photograph the main test did not drop (the seventh smallest)."""
    return package_photos.smallest(7)[6]


def run(driver, wait, daemon, check, password, category):
    """Every step; `category` names an existing category with at least one utensil."""
    # A utensil that arrives live, while the page is open, gets its star too.
    driver.get(daemon.base + "/")
    photo = _unused_photo()
    shutil.copy(photo, daemon.inbox)
    arrived = os.path.splitext(os.path.basename(photo))[0]
    wait.until(lambda d: arrived in d.find_element(By.ID, "grid").text)
    live_star = driver.find_elements(By.CSS_SELECTOR, "#grid .card.fresh .star")
    check("a utensil arriving live has a star", len(live_star) == 1, f"{len(live_star)}")

    # Star a utensil on the grid, find it under the Favorites chip, unstar it there.
    driver.get(daemon.base + "/")
    star = driver.find_element(By.CSS_SELECTOR, "#grid .card .star")
    card_id = star.find_element(By.XPATH, "ancestor::li").get_attribute("data-id")
    check("a signed-in user sees an empty star on each utensil", star.get_attribute("aria-pressed") == "false")
    star.click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f'#grid .card[data-id="{card_id}"] .star')
               .get_attribute("aria-pressed") == "true")
    check("the star marks it as a favorite", True)
    driver.find_element(By.CSS_SELECTOR, ".chips a.favorites").click()
    wait.until(lambda d: "favorites=1" in d.current_url)
    shown = _settled(wait, lambda: [c.get_attribute("data-id")
                                    for c in driver.find_elements(By.CSS_SELECTOR, "#grid .card")], [card_id])
    check("the Favorites chip shows only the favorite", shown == [card_id], f"{shown}")
    driver.find_element(By.CSS_SELECTOR, f'#grid .card[data-id="{card_id}"] .star').click()
    wait.until(lambda d: "favorites=1" in d.current_url and not d.find_elements(By.CSS_SELECTOR, "#grid .card"))
    check("unstarring takes it off the favorites", "No favorites here yet" in driver.page_source)

    # Rename the category from its view; then, with the gallery open, a rename elsewhere
    # redraws the chips without a reload.
    driver.get(daemon.base + "/?" + urllib.parse.urlencode({"category": category}))
    field = driver.find_element(By.CSS_SELECTOR, '.category-forms input[name="name"]')
    field.clear()
    field.send_keys("Blooms")
    field.submit()
    wait.until(lambda d: "category=Blooms" in d.current_url)
    names = [c["name"] for c in daemon.get("/api/v1/categories")]
    check("the category's view renames it", "Blooms" in names and category not in names, f"{names}")
    driver.get(daemon.base + "/")
    driver.execute_script("window.stillThisPage = true;")
    cookie = "utensild_session=" + driver.get_cookie("utensild_session")["value"]
    status, _, _ = _request(daemon, "POST", "/categories/rename",
                            urllib.parse.urlencode({"category": "Blooms", "name": "Petals"}).encode(), cookie)
    live = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.chips a[data-category="Petals"]'))
    check("an open gallery's chips follow a rename live",
          status == 303 and live and driver.execute_script("return window.stillThisPage === true;")
          and not driver.find_elements(By.CSS_SELECTOR, '.chips a[data-category="Blooms"]'))

    # Change the password: another session of alice ends, this browser stays signed in.
    other = _sign_in(daemon, password)
    check("a second session signs in", other is not None and _signed_in(daemon, other))
    driver.get(daemon.base + "/account")
    new_password = password + " 2"
    driver.find_element(By.NAME, "old").send_keys(password)
    driver.find_element(By.NAME, "new").send_keys(new_password)
    driver.find_element(By.NAME, "again").send_keys(new_password)
    driver.find_element(By.CSS_SELECTOR, "#password-form button").click()
    wait.until(lambda d: "Your password is changed" in d.page_source)
    driver.get(daemon.base + "/")
    check("changing the password keeps this browser signed in", "Signed in as" in driver.page_source)
    check("changing the password ends the other session", other is not None and not _signed_in(daemon, other))
    check("the new password signs in", _sign_in(daemon, new_password) is not None)

    # Sign out from the header of a utensil's page, kept by the service worker as this user saw it.
    page = f"/utensils/{card_id}"
    driver.get(daemon.base + page)
    kept_before = _wait_for(wait, lambda d: d.execute_async_script(KEPT_PAGE, page) or d.refresh())
    driver.find_element(By.CSS_SELECTOR, 'header form[action="/logout"] button').click()
    wait.until(lambda d: "Signed in as" not in d.page_source)
    check("the header's Sign out signs out", 'href="/login"' in driver.page_source
          and not driver.find_elements(By.CSS_SELECTOR, "#grid .star"))
    forgotten = _wait_for(wait, lambda d: not d.execute_async_script(KEPT_PAGE, page))
    check("signing out forgets the pages the service worker kept as the signed-in user saw them",
          kept_before and forgotten, f"kept before: {kept_before}, forgotten after: {forgotten}")
    return card_id
