"""Browser steps of the gallery's infinite scroll, run by phone_steps.py: the total above the
grid, the next pages appended as the phone scrolls (no reload), the same pages and scroll
position after opening a photo and going back, "previous" on the first card of a later
page, and the plain "More" link without JavaScript. Pages of 3 (`limit=3`) make several
pages out of the photos the test has.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

PAGE = 3
CARDS = "return document.querySelectorAll('#grid .card').length;"


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
    finally:
        plain.quit()


def run(daemon, phone, browser, wait, check, shots):
    infinite_scroll(daemon, phone, wait, check, shots)
    more_without_javascript(daemon, browser, check)
