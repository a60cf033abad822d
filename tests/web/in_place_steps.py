"""Browser steps of changes made without leaving the page, run by phone_steps.py in its
signed-in phone (touch, 3×) and desktop: a star pressed far down the grid keeps the scroll
position; several cards selected are moved into a category and deleted (the actions in view
far down the grid, the place kept), and Undo puts them back where they were, unselected; on a
utensil's page, rename, a new category and delete with its Undo change the page in place;
a search's category chips carry no whole-catalog counts.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

MARK = "window.stillThisPage = true;"
SAME_PAGE = "return window.stillThisPage === true;"
# Where an element is against the viewport (an Undo must be in sight, wherever the page is).
IN_VIEW = """
const b = arguments[0].getBoundingClientRect();
return {top: Math.round(b.top), bottom: Math.round(b.bottom), height: window.innerHeight, scrollY: Math.round(window.scrollY),
        inView: b.top >= 0 && b.bottom <= window.innerHeight && b.height > 0};
"""
# The utensil's JSON as the signed-in browser sees it (its favorite included).
FETCH_UTENSIL = """
const done = arguments[arguments.length - 1];
fetch('/api/v1/utensils/' + arguments[0]).then(r => r.json()).then(done, () => done(null));
"""


def _utensil(driver, utensil_id):
    reply = driver.execute_async_script(FETCH_UTENSIL, utensil_id) or {}
    return reply.get("utensil", reply)


def _row(daemon, utensil_id):
    reply = daemon.get(f"/api/v1/utensils/{utensil_id}")
    return reply.get("utensil", reply)


def _grid_ids(driver):
    return [c.get_attribute("data-id") for c in driver.find_elements(By.CSS_SELECTOR, "#grid .card")]


def star_keeps_place(daemon, phone, wait, check):
    phone.get(daemon.base + "/")
    phone.execute_script(MARK)
    cards = phone.find_elements(By.CSS_SELECTOR, "#grid .card")
    card = cards[min(7, len(cards) - 1)]
    card_id = card.get_attribute("data-id")
    phone.execute_script("arguments[0].scrollIntoView({block: 'center'});", card)
    wait.until(lambda d: d.execute_script("return window.scrollY;") > 0)
    before = phone.execute_script("return window.scrollY;")
    star = card.find_element(By.CSS_SELECTOR, ".star")
    pressed = star.get_attribute("aria-pressed") == "true"
    star.click()
    wait.until(lambda d: star.get_attribute("aria-pressed") == ("false" if pressed else "true"))
    after = phone.execute_script("return window.scrollY;")
    marked = _utensil(phone, card_id).get("favorite")
    check("phone: a star far down the grid changes in place, the scroll position kept",
          phone.execute_script(SAME_PAGE) and after == before and marked is (not pressed),
          f"scrollY {before} -> {after}, favorite {marked}")
    star.click()
    wait.until(lambda d: star.get_attribute("aria-pressed") == ("true" if pressed else "false"))


def select_several(daemon, phone, wait, check, shots):
    loose = [u["id"] for u in daemon.get("/api/v1/utensils?limit=500")["utensils"] if not u.get("category")]
    phone.get(daemon.base + "/")
    phone.execute_script(MARK)
    order = _grid_ids(phone)
    chosen = [i for i in order if i in loose][1:3]
    toggle_box, total_box = phone.execute_script(
        "return ['select-toggle', 'total'].map(id => { const b = document.getElementById(id).getBoundingClientRect();"
        " return [b.left, b.top, b.right, b.bottom]; });")
    check("phone: the Select button ends the total's line (no line of its own)",
          toggle_box[1] < total_box[3] and total_box[1] < toggle_box[3] and total_box[2] <= toggle_box[0],
          f"Select {toggle_box}, total {total_box}")
    phone.find_element(By.ID, "select-toggle").click()
    for utensil_id in chosen:
        phone.find_element(By.CSS_SELECTOR, f'#grid .card[data-id="{utensil_id}"] > a').click()
    count = phone.find_element(By.ID, "select-count").text
    boxes = phone.execute_script(
        "return Array.from(document.querySelectorAll('#grid .card .pick')).map(b => b.getBoundingClientRect().width);")
    check("phone: Select turns the cards into 44 px checkboxes, a tap selects without opening",
          count == "2 selected" and boxes and min(boxes) >= 44 and phone.execute_script(SAME_PAGE), f"{count!r} {boxes[:2]}")
    if shots:
        phone.save_screenshot(f"{shots}/phone-select.png")

    field = phone.find_element(By.ID, "select-category")
    field.send_keys("Ladles")
    phone.find_element(By.CSS_SELECTOR, '#select-actions button[data-bulk="move"]').click()
    moved = daemon.wait_for("the move", lambda: all(
        _row(daemon, i).get("category") == "Ladles" for i in chosen))
    chip = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, '.chips a[data-category="Ladles"] .count'))
    check("phone: two selected cards move into a new category, its chip follows, no reload",
          moved and chip and chip[0].get_attribute("textContent") == "2" and phone.execute_script(SAME_PAGE),
          chip[0].get_attribute("textContent") if chip else "no chip")

    names = {i: _row(daemon, i)["name"] for i in chosen}
    phone.execute_script("window.scrollTo(0, 0);")
    toggle = phone.find_element(By.ID, "select-toggle")
    bar_bottom = phone.execute_script("return arguments[0].getBoundingClientRect().bottom + window.scrollY;", toggle)
    toggle.click()
    for utensil_id in chosen:
        phone.find_element(By.CSS_SELECTOR, f'#grid .card[data-id="{utensil_id}"] .pick').click()
    # Far down the grid (the bar's own place scrolled out of sight), the actions stay in view
    # and deleting from there keeps the place.
    phone.execute_script("window.scrollTo(0, document.documentElement.scrollHeight);")
    delete = phone.find_element(By.CSS_SELECTOR, '#select-actions button[data-bulk="delete"]')
    box = phone.execute_script(IN_VIEW, delete)
    check("phone: while selecting, far down the grid, the actions stay in view",
          box["inView"] and box["scrollY"] > bar_bottom, f"{box}, the bar's place ends at {bar_bottom}")
    delete.click()
    offered = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".undo button"))
    place = phone.execute_script("return window.scrollY;")
    check("phone: deleting selected cards from far down the grid keeps the place",
          place > bar_bottom, f"scrollY {box['scrollY']} -> {place}, the bar's place ends at {bar_bottom}")
    gone = daemon.wait_for("the deletes", lambda: not set(names.values()) & set(daemon.names()))
    check("phone: two selected cards go to the trash, leave the grid, with one Undo",
          offered and gone and not set(chosen) & set(_grid_ids(phone))
          and "2 utensils are in the trash." in phone.find_element(By.CLASS_NAME, "undo").text
          and phone.execute_script(SAME_PAGE))
    phone.find_element(By.CSS_SELECTOR, ".undo button").click()
    back = daemon.wait_for("the undo", lambda: set(names.values()) <= set(daemon.names()))
    wait.until(lambda d: set(chosen) <= set(_grid_ids(d)))
    check("phone: Undo brings both back, in their places on the grid",
          back and _grid_ids(phone) == order and phone.execute_script(SAME_PAGE), f"{_grid_ids(phone)} vs {order}")
    phone.find_element(By.ID, "select-toggle").click()
    ticked = phone.execute_script("return document.querySelectorAll('#grid .card .pick:checked').length;")
    count = phone.find_element(By.ID, "select-count").text
    check("phone: cards brought back by Undo come back unselected", ticked == 0 and count == "Tap photos to select them.",
          f"{ticked} ticked, {count!r}")
    phone.find_element(By.ID, "select-toggle").click()


def page_in_place(daemon, desktop, wait, check):
    utensil = [u for u in daemon.get("/api/v1/utensils?limit=500")["utensils"] if not u.get("category")][0]
    desktop.get(daemon.base + f"/utensils/{utensil['id']}")
    desktop.execute_script(MARK)
    url = desktop.current_url
    field = desktop.find_element(By.CSS_SELECTOR, 'form[action$="/rename"] input[name="name"]')
    field.clear()
    field.send_keys("Renamed in place" + Keys.ENTER)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "main.utensil h2 .title").text == "Renamed in place")
    renamed = daemon.wait_for("the rename", lambda: "Renamed in place" in daemon.names())
    check("desktop: rename changes the page in place",
          renamed and desktop.current_url == url and desktop.execute_script(SAME_PAGE)
          and desktop.title.startswith("Renamed in place"), desktop.title)

    field = desktop.find_element(By.CSS_SELECTOR, 'form[action$="/category"] input[name="category"]')
    field.clear()
    field.send_keys("Graters" + Keys.ENTER)
    shown = wait.until(lambda d: d.execute_script(
        "return Array.from(document.querySelectorAll('.facts dt')).find(t => t.textContent === 'Category')"
        ".nextElementSibling.textContent;") == "Graters")
    offered = desktop.execute_script(
        "return Array.from(document.getElementById('category-choices').options).map(o => o.value);")
    check("desktop: a new category shows in place and joins the picker's choices",
          shown and "Graters" in offered and desktop.execute_script(SAME_PAGE), f"{offered}")

    desktop.find_element(By.CSS_SELECTOR, 'form[action$="/delete"] button').click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".undo button"))
    box = desktop.execute_script(IN_VIEW, desktop.find_element(By.CLASS_NAME, "undo"))
    check("desktop: the Undo shows in the viewport, where the Delete pressed far down the page was",
          box["inView"] and box["scrollY"] > 0, f"{box}")
    trashed = daemon.wait_for("the delete", lambda: "Renamed in place" not in daemon.names())
    check("desktop: delete keeps the page, saying it is in the trash, with an Undo",
          trashed and "Renamed in place is in the trash." in desktop.find_element(By.CLASS_NAME, "undo").text
          and desktop.execute_script(SAME_PAGE))
    desktop.find_element(By.CSS_SELECTOR, ".undo button").click()
    restored = daemon.wait_for("the undo", lambda: "Renamed in place" in daemon.names())
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".undo"))
    check("desktop: its Undo restores it, the forms back", restored and desktop.find_element(
        By.CSS_SELECTOR, 'form[action$="/rename"]').is_displayed() and desktop.execute_script(SAME_PAGE))
    field = desktop.find_element(By.CSS_SELECTOR, 'form[action$="/rename"] input[name="name"]')
    field.clear()
    field.send_keys(utensil["name"] + Keys.ENTER)
    daemon.wait_for("the name back", lambda: utensil["name"] in daemon.names())
    field = desktop.find_element(By.CSS_SELECTOR, 'form[action$="/category"] input[name="category"]')
    field.clear()
    field.send_keys(Keys.ENTER)
    daemon.wait_for("no category again", lambda: _row(daemon, utensil["id"]).get("category") is None)


def search_chips_uncounted(daemon, phone, wait, check):
    """A search's chips carry no whole-catalog counts, also once drawn again live."""
    phone.get(daemon.base + "/?search=e")
    drawn = phone.find_elements(By.CSS_SELECTOR, ".chips a[data-category]")
    phone.execute_script("document.querySelectorAll('.chips a[data-category]').forEach(c => c.dataset.old = '1');"
                         "document.dispatchEvent(new Event('utensild:categories'));")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".chips a[data-category]")
               and not d.find_elements(By.CSS_SELECTOR, ".chips a[data-old]"))
    counts = phone.execute_script("return document.querySelectorAll('.chips .count').length;")
    check("phone: a search's category chips show no whole-catalog counts, drawn again live too",
          drawn and counts == 0, f"{len(drawn)} chips, {counts} counts")


def run(daemon, phone, desktop, wait, desktop_wait, check, shots):
    star_keeps_place(daemon, phone, wait, check)
    select_several(daemon, phone, wait, check, shots)
    search_chips_uncounted(daemon, phone, wait, check)
    page_in_place(daemon, desktop, desktop_wait, check)
