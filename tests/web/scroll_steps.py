"""Browser steps of the gallery's infinite scroll, run by phone_steps.py: the total above the
grid, the next pages appended as the phone scrolls (no reload), the same pages and scroll
position after opening a photo and going back, "previous" on the first card of a later
page, the way back from a photo of a later page (to the whole list, at the photo last seen,
whether by "Back to the list" or the browser's back, with no history entry per photo), and
the plain "More" and "Back to the list" links without JavaScript. Pages of 3 (`limit=3`)
make several pages out of the photos the test has.
"""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import viewer_steps

PAGE = 3
CARDS = "return document.querySelectorAll('#grid .card').length;"
FIRST = "const c = document.querySelector('#grid .card'); return c && c.dataset.id;"
REVEALED = "const g = document.getElementById('grid'); return g && g.dataset.revealed;"
SHOWN = ("const c = document.getElementById('u-' + arguments[0]); if (!c) return false; "
         "const b = c.getBoundingClientRect(); return b.top >= 0 && b.bottom <= window.innerHeight;")
HISTORY = "return navigation.currentEntry.index;"


def _bottom(driver):
    driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight);")


def infinite_scroll(daemon, phone, wait, check, shots):
    everything = len(daemon.names())
    phone.get(daemon.base + f"/?limit={PAGE}")
    phone.execute_script("window.stillThisPage = true;")
    total = phone.find_element(By.ID, "total").text
    check("phone: the gallery says how many utensils it holds", total == f"{everything} utensils", f"{total!r} vs {everything}")
    _bottom(phone)
    grew = wait.until(lambda d: d.execute_script(CARDS) >= 2 * PAGE)
    check("phone: scrolling to the end appends the next pages, no reload",
          everything >= 3 * PAGE and grew and phone.execute_script("return window.stillThisPage === true;"),
          f"{phone.execute_script(CARDS)} cards of {everything}")
    for _ in range(everything // PAGE + 2):
        if not phone.find_elements(By.CSS_SELECTOR, ".more a"):
            break
        seen = phone.execute_script(CARDS)
        _bottom(phone)
        wait.until(lambda d, seen=seen: d.execute_script(CARDS) > seen or not d.find_elements(By.CSS_SELECTOR, ".more a"))
    ids = [c.get_attribute("data-id") for c in phone.find_elements(By.CSS_SELECTOR, "#grid .card")]
    check("phone: scrolling on shows every utensil once, then no More",
          len(ids) == everything and len(set(ids)) == everything and not phone.find_elements(By.CSS_SELECTOR, ".more"),
          f"{len(ids)} cards, {len(set(ids))} distinct, of {everything}")

    # Open a card of the third page, then go back: the same pages, the same place.
    card = phone.find_elements(By.CSS_SELECTOR, "#grid .card")[2 * PAGE + 1]
    phone.execute_script("arguments[0].scrollIntoView({block: 'center'});", card)
    place = phone.execute_script("return Math.round(window.scrollY);")
    link = card.find_element(By.CSS_SELECTOR, "a")
    link.click()
    wait.until(lambda d: "/utensils/" in d.current_url)
    phone.back()
    back = wait.until(lambda d: d.execute_script(
        "return document.querySelectorAll('#grid .card').length >= arguments[0] && "
        "Math.abs(window.scrollY - arguments[1]) <= 2;", 2 * PAGE + 2, place))
    check("phone: back from a photo shows the same pages at the same scroll position",
          back, f"{phone.execute_script(CARDS)} cards, scrollY {phone.execute_script('return window.scrollY;')} vs {place}")
    if shots:
        phone.save_screenshot(f"{shots}/phone-scrolled.png")

    # The first card of the second page: its previous is the last of the first page.
    hrefs = [a.get_attribute("href") for a in phone.find_elements(By.CSS_SELECTOR, "#grid .card > a")]
    phone.get(hrefs[PAGE])
    previous = phone.find_elements(By.CSS_SELECTOR, 'a[rel="prev"]')
    target = hrefs[PAGE - 1].split("?")[0]
    check("phone: the first card of a later page has a previous, the last of the page before",
          previous and previous[0].get_attribute("href").split("?")[0] == target,
          previous[0].get_attribute("href") if previous else "none")
    if previous:
        previous[0].click()
        moved = wait.until(lambda d: d.current_url.split("?")[0] == target)
        following = phone.find_elements(By.CSS_SELECTOR, 'a[rel="next"]')
        check("phone: following it arrives there, whose next leads back",
              moved and following and following[0].get_attribute("href").split("?")[0] == hrefs[PAGE].split("?")[0])


def _own(href):
    return href.split("/utensils/")[1].split("?")[0].split("#")[0]


def _load_pages(driver, wait, cards):
    """Scrolls the list until it holds `cards` cards (or has no More)."""
    for _ in range(cards // PAGE + 2):
        seen = driver.execute_script(CARDS)
        if seen >= cards or not driver.find_elements(By.CSS_SELECTOR, ".more a"):
            return
        _bottom(driver)
        wait.until(lambda d, seen=seen: d.execute_script(CARDS) > seen or not d.find_elements(By.CSS_SELECTOR, ".more a"))


def _ready(driver, wait):
    wait.until(lambda d: d.execute_script("return document.readyState === 'complete';"))


def _swipe_left(driver, wait):
    wait.until(lambda d: d.execute_script(
        "const i = document.querySelector('#viewer img'); return i && i.complete && i.naturalWidth > 0;"))
    x, y = driver.execute_script(viewer_steps.CENTRE)
    before = driver.current_url
    viewer_steps._gesture(driver, [(x + 120, y)], [(x - 120, y + 10)])
    wait.until(lambda d: d.current_url != before)
    _ready(driver, wait)


def back_to_the_whole_list(daemon, phone, wait, check):
    phone.get(daemon.base + f"/?limit={PAGE}")
    first = phone.execute_script(FIRST)
    at_list = phone.execute_script(HISTORY)
    _load_pages(phone, wait, 3 * PAGE)
    card = phone.find_elements(By.CSS_SELECTOR, "#grid .card")[2 * PAGE]
    phone.execute_script("arguments[0].scrollIntoView({block: 'center'});", card)
    href = card.find_element(By.CSS_SELECTOR, "a").get_attribute("href")
    check("phone: a card of a later page links its photo with that page's cursor", "after=" in href, href)
    card.find_element(By.CSS_SELECTOR, "a").click()
    wait.until(lambda d: "/utensils/" in d.current_url)
    _ready(phone, wait)
    ActionChains(phone).send_keys(Keys.ARROW_RIGHT).perform()
    wait.until(lambda d: _own(d.current_url) != _own(href))
    _ready(phone, wait)
    _swipe_left(phone, wait)
    seen = _own(phone.current_url)
    check("phone: going through the list in the viewer (arrow key, swipe) adds no history entry",
          phone.execute_script(HISTORY) == at_list + 1 and seen != _own(href),
          f"history index {phone.execute_script(HISTORY)} vs the list's {at_list}")
    phone.execute_script("window.scrollTo(0, 0);")
    phone.find_element(By.CSS_SELECTOR, "a.back").click()
    wait.until(lambda d: "/utensils/" not in d.current_url and d.execute_script(REVEALED) == seen)
    check("phone: Back to the list steps back to the whole list, the photo last seen in view",
          phone.execute_script(HISTORY) == at_list and phone.execute_script(FIRST) == first
          and phone.execute_script(SHOWN, seen),
          f"{phone.current_url}, history index {phone.execute_script(HISTORY)} vs {at_list}")

    # The browser's own back, after swipes: the list, at the photo swiped to.
    phone.execute_script("arguments[0].scrollIntoView({block: 'center'});", phone.find_element(By.ID, "u-" + _own(href)))
    phone.find_element(By.CSS_SELECTOR, f'#u-{_own(href)} > a').click()
    wait.until(lambda d: "/utensils/" in d.current_url)
    _ready(phone, wait)
    _swipe_left(phone, wait)
    _swipe_left(phone, wait)
    seen = _own(phone.current_url)
    phone.back()
    wait.until(lambda d: "/utensils/" not in d.current_url and d.execute_script(REVEALED) == seen)
    check("phone: the browser's back from the viewer returns to the list, the photo swiped to in view",
          phone.execute_script(HISTORY) == at_list and phone.execute_script(SHOWN, seen), phone.current_url)

    # Opened from elsewhere, a later page's photo goes back to the whole list, from its first page.
    phone.get(daemon.base + "/trash")
    phone.get(href)
    _ready(phone, wait)
    phone.find_element(By.CSS_SELECTOR, "a.back").click()
    wait.until(lambda d: "/utensils/" not in d.current_url and d.execute_script(REVEALED) == _own(href))
    check("phone: Back to the list opens the whole list, its pages loaded up to the photo's card, in view",
          "after=" not in phone.current_url and phone.current_url.endswith("#u-" + _own(href))
          and phone.execute_script(FIRST) == first and phone.execute_script(SHOWN, _own(href)), phone.current_url)

    # A later page named with a card (a link made without JavaScript): the whole list instead.
    phone.get(daemon.base + "/?" + href.split("?", 1)[1] + "#u-" + _own(href))
    wait.until(lambda d: "after=" not in d.current_url and d.execute_script(REVEALED) == _own(href))
    check("phone: a later page's address with a card opens the whole list at that card",
          phone.execute_script(FIRST) == first and phone.execute_script(SHOWN, _own(href)), phone.current_url)


def more_without_javascript(daemon, browser, check):
    plain = browser(javascript=False)
    try:
        plain.get(daemon.base + f"/?limit={PAGE}")
        first = [c.get_attribute("data-id") for c in plain.find_elements(By.CSS_SELECTOR, "#grid .card")]
        plain.find_element(By.CSS_SELECTOR, ".more a").click()
        WebDriverWait(plain, 30).until(lambda d: "after=" in d.current_url)
        second = [c.get_attribute("data-id") for c in plain.find_elements(By.CSS_SELECTOR, "#grid .card")]
        check("without JavaScript: More is a link to the next page",
              len(second) == PAGE and not set(first) & set(second), plain.current_url)
        plain.find_element(By.CSS_SELECTOR, "#grid .card > a").click()
        WebDriverWait(plain, 30).until(lambda d: "/utensils/" in d.current_url)
        back = plain.find_element(By.CSS_SELECTOR, "a.back").get_attribute("href")
        check("without JavaScript: Back to the list is a link to that page, at the card",
              "after=" in back and back.endswith("#u-" + second[0]), back)
    finally:
        plain.quit()


def run(daemon, phone, browser, wait, check, shots):
    infinite_scroll(daemon, phone, wait, check, shots)
    back_to_the_whole_list(daemon, phone, wait, check)
    more_without_javascript(daemon, browser, check)
