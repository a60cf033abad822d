"""axe-core (shipped by PyPI's axe-selenium-python, which make/web.mk installs) over the
gallery's pages as the signed-in phone and desktop see them, run by phone_steps.py: no
serious or critical finding. Each page's screenshot is kept beside the others.
"""
from axe_selenium_python import Axe
from selenium.webdriver.common.by import By

SERIOUS = ("serious", "critical")


def _findings(driver):
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['nodes'][0]['target'] if v['nodes'] else ''}"
            for v in results["violations"] if v.get("impact") in SERIOUS]


def run(daemon, phone, desktop, check, shots):
    utensil = daemon.get("/api/v1/utensils?limit=1")["utensils"][0]["id"]
    pages = [("gallery", "gallery", "/"), ("a utensil's page", "utensil", f"/utensils/{utensil}"), ("the trash", "trash", "/trash"),
             ("the account", "account", "/account"), ("a list of pages", "pages", "/?limit=3")]
    for device, driver in (("phone", phone), ("desktop", desktop)):
        for label, name, path in pages:
            driver.get(daemon.base + path)
            found = _findings(driver)
            check(f"{device}: axe finds nothing serious on {label}", not found, f"{found}")
            if shots:
                driver.save_screenshot(f"{shots}/{device}-{name}.png")
        driver.get(daemon.base + "/")
        driver.find_element(By.ID, "select-toggle").click()
        found = _findings(driver)
        check(f"{device}: axe finds nothing serious while selecting several", not found, f"{found}")
