"""The console in a real headless Chromium (Debian's chromium + chromium-driver, driven by
Selenium): sign in with a wrong key and the right one, the overview's figures equal the admin
API's, the placements page lists the configuration, a revoked key sends the user back to sign
in. Screenshots of each page at 1280 px and 390 px go to SCREENSHOTS.

Usage: dashboard_test.py BASE_URL SECRET_KEY SCREENSHOTS
"""
import json
import os
import sys
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

base, secret, shots = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(shots, exist_ok=True)
failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def admin(method, path, body=None, key=secret):
    request = urllib.request.Request(base + path, method=method, headers={"Authorization": "Bearer " + key})
    if body is not None:
        request.data = json.dumps(body).encode()
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(driver, 10)


def shoot(name):
    for width, label in [(1280, "desktop"), (390, "phone")]:
        driver.set_window_size(width, 900)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(width, max(600, min(height + 40, 3000)))
        driver.save_screenshot(os.path.join(shots, f"{name}-{label}.png"))
    driver.set_window_size(1280, 900)


def sign_in(key):
    field = wait.until(EC.visibility_of_element_located((By.ID, "key")))
    field.clear()
    field.send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()


try:
    driver.get(base + "/dashboard")
    wait.until(EC.visibility_of_element_located((By.ID, "key")))
    check(not driver.find_element(By.ID, "nav").is_displayed(), "no navigation before signing in")
    shoot("sign-in")
    sign_in("tg_sec_wrong")
    error = wait.until(EC.visibility_of_element_located((By.ID, "sign-in-error")))
    check("does not open the admin API" in error.text, "a wrong key shows an error: " + error.text)
    check(driver.execute_script("return sessionStorage.getItem('tollgate.secretKey')") is None, "a wrong key is not kept")

    sign_in(secret)
    wait.until(EC.text_to_be_present_in_element((By.ID, "view"), "Configuration revision"))
    status, overview = admin("GET", "/v1/admin/overview")
    figures = {
        element.find_element(By.CLASS_NAME, "label").text: element.find_element(By.CLASS_NAME, "value").text
        for element in driver.find_elements(By.CSS_SELECTOR, "#view .figure")
    }
    check(figures.get("Configuration revision") == str(overview["revision"]), f"revision {figures.get('Configuration revision')} = {overview['revision']}")
    check(figures.get("Placements") == str(len(overview["placements"])), "placements count")
    check(driver.find_element(By.ID, "app-name").text == overview["name"], "the app's name is shown as text: " + overview["name"])
    check(driver.find_elements(By.CSS_SELECTOR, "header img") == [], "the app's name made no element")
    try:
        driver.switch_to.alert
        check(False, "no dialog opened")
    except Exception:
        check(True, "no dialog opened")
    check(driver.execute_script("return sessionStorage.getItem('tollgate.secretKey')") == secret, "the key is kept in sessionStorage")
    check(driver.execute_script("return document.cookie") == "", "no cookie is set")
    shoot("overview")

    driver.find_element(By.LINK_TEXT, "Placements").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "view"), "Targets, in order"))
    status, config = admin("GET", "/v1/admin/config")
    rows = driver.find_elements(By.CSS_SELECTOR, "#view tbody tr")
    check(len(rows) == len(config["document"]["placements"]), "one row per placement")
    check(rows[0].find_elements(By.TAG_NAME, "td")[0].text == config["document"]["placements"][0]["id"], "placement ids in order")
    shoot("placements")

    # Keyboard: the navigation is reachable with Tab and opens with Enter.
    links = driver.find_elements(By.CSS_SELECTOR, "nav a")
    check(all(link.get_attribute("href") for link in links), "navigation links are focusable links")

    # Keys: create a public key in the console, use it on an SDK route, revoke it in the console.
    def sdk_status(key):
        request = urllib.request.Request(base + "/v1/sdk/fallback", headers={"Authorization": "Api-Key " + key})
        try:
            with urllib.request.urlopen(request) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    driver.find_element(By.LINK_TEXT, "Keys").click()
    wait.until(EC.visibility_of_element_located((By.ID, "create-key")))
    driver.find_element(By.ID, "new-label").send_keys("made in the console")
    driver.find_element(By.CSS_SELECTOR, "#create-key button").click()
    made = wait.until(EC.visibility_of_element_located((By.ID, "new-key-value"))).text
    check(made.startswith("tg_pub_"), "a created key is shown once: " + made[:10] + "…")
    check(sdk_status(made) == 200, "the new key opens the SDK routes")
    listed = admin("GET", "/v1/admin/keys")[1]["keys"]
    new_id = [k["id"] for k in listed if k.get("label") == "made in the console"][0]
    check(new_id in driver.find_element(By.ID, "view").text, "the keys table lists it")
    shoot("keys")
    button = driver.find_element(By.CSS_SELECTOR, f'button[data-key="{new_id}"]')
    button.click()
    check(button.text == "Confirm revoke", "revoking asks once more")
    button.click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, f'button[data-key="{new_id}"]'))
    check(sdk_status(made) == 401, "a key revoked in the console is refused by the SDK routes (401)")
    check(driver.find_elements(By.ID, "new-key-value") == [], "the key is not shown again")

    # Revoke the key the page uses: the next page load sends the user back to sign in.
    status, created = admin("POST", "/v1/admin/keys", {"kind": "secret", "label": "console test"})
    other = created["key"]
    keys = admin("GET", "/v1/admin/keys", key=other)[1]["keys"]
    current = [k for k in keys if k["kind"] == "secret" and k.get("revoked_at") is None and k.get("label") != "console test"][0]
    status, _ = admin("DELETE", "/v1/admin/keys/" + current["id"], key=other)
    check(status == 200, "the console's key is revoked")
    driver.find_element(By.LINK_TEXT, "Overview").click()
    error = wait.until(EC.visibility_of_element_located((By.ID, "sign-in-error")))
    check("sign in again" in error.text, "a revoked key sends the user back to sign in: " + error.text)
    logs = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and "401" not in entry["message"]]
    check(not logs, "no console errors (CSP violations included): " + json.dumps(logs)[:300])
finally:
    driver.quit()

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
