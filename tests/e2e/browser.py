"""The web app in a real browser for the e2e tests: Debian's headless Chromium driven by Selenium, and `App`, a
logged-in user's view of the app with the steps a person takes (tap, type, read a toast, take screenshots).

Screenshots go to tests/e2e/screenshots/ (ignored by git) for a person to look at.
"""
import json
import os
import shutil
import time
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

SCREENSHOTS = os.path.join(os.path.dirname(__file__), "screenshots")
PHONE = (390, 844)
DESKTOP = (1280, 900)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def chromium(language="en-US", font_size=16):
    """Debian's headless Chromium through chromedriver, with `language` as the browser's language and `font_size`
    (px) as its text size, the setting a person who needs larger text changes (32 is 200%)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.fail("Chromium and chromedriver are required (scripts/test.sh installs them with apt-get)")
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--lang={language}",
                "--window-size=1280,900"]:
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": language,
                                              "webkit.webprefs.default_font_size": font_size})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for the tour's error check
    options.binary_location = CHROMIUM
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    d.set_script_timeout(20)
    # Every toast the page shows, kept after it fades: a wait for one toast that fails then says what was said instead.
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TOAST_RECORDER})
    os.makedirs(SCREENSHOTS, exist_ok=True)
    return d


TOAST_RECORDER = """
    window.__toastsSeen = [];
    new MutationObserver((changes) => {
      for (const change of changes) for (const node of change.addedNodes) {
        if (node.nodeType === 1 && node.classList.contains('toast')) window.__toastsSeen.push(node.textContent);
      }
    }).observe(document, { childList: true, subtree: true });
"""


class App:
    """The web app in the browser, logged in as a fresh user."""

    def __init__(self, driver, server):
        self.d = driver
        self.server = server
        # A screen re-renders as data arrives: a wait that read an element just replaced polls again.
        self.wait = WebDriverWait(driver, 45, ignored_exceptions=(StaleElementReferenceException,))
        self.size(*PHONE)

    def size(self, width, height):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})

    def open(self, route=""):
        self.d.get(f"{self.server.url}/#/{route}")

    def go(self, route):
        self.d.execute_script("location.hash = arguments[0]", "#/" + route)

    def css(self, selector):
        return self.wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, selector)))

    def visible(self, selector):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, selector)))

    def all(self, selector):
        return self.d.find_elements(By.CSS_SELECTOR, selector)

    def press(self, element):
        """Clicks like a user: scrolled to the middle of the screen first (not under the fixed tab bar)."""
        self.clear_toasts()
        self.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()
        return element

    def click(self, selector):
        # Live parts of the page re-render (quotes, balances): an element found a moment ago may be replaced by the
        # time it is clicked; find it again, as a user's next tap would.
        for attempt in range(3):
            try:
                return self.press(self.wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, selector))))
            except StaleElementReferenceException:
                if attempt == 2:
                    raise

    def button(self, text, within="body"):
        xpath = f"//{'dialog[@open]' if within == 'dialog' else 'body'}//button[normalize-space()={json.dumps(text)}]"
        return self.press(self.wait.until(EC.element_to_be_clickable((By.XPATH, xpath))))

    def text_in(self, selector, text, timeout=None):
        """Waits for `text` in the element; `timeout` (seconds) for work that runs as a job, such as a backtest."""
        wait = self.wait if timeout is None else WebDriverWait(
            self.d, timeout, ignored_exceptions=(StaleElementReferenceException,))
        wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, selector), text))
        return self.d.find_element(By.CSS_SELECTOR, selector).text

    def toasts(self):
        return self.d.execute_script("return [...document.querySelectorAll('.toast')].map(t => t.textContent)")

    def toast(self, text):
        """Waits for a toast containing `text` and returns it."""
        try:
            return self.wait.until(lambda d: next((t for t in self.toasts() if text in t), None))
        except TimeoutException:
            seen = self.d.execute_script("return window.__toastsSeen ?? []")[-8:]
            sheet = self.d.execute_script("""
                const d = document.querySelector('dialog[open]');
                return d ? (d.querySelector('.confirm-step:not([hidden])') ? 'confirm step: ' : 'form: ') + d.innerText.slice(0, 400)
                         : 'no sheet open; page: ' + (document.querySelector('main')?.innerText ?? '').slice(0, 200);
            """)
            raise AssertionError(f"no toast with {text!r}; toasts now: {self.toasts()}; the last shown: {seen}; {sheet}")

    def clear_toasts(self):
        self.d.execute_script("document.querySelectorAll('.toast').forEach(t => t.remove())")

    def api(self, method, path, body=None):
        """Calls the native API from the page, with the browser's session cookie."""
        return self.d.execute_async_script("""
            const [method, path, body, done] = arguments;
            fetch('/api/v1' + path, {method, headers: {'Content-Type': 'application/json'},
                                     body: body === null ? undefined : JSON.stringify(body)})
              .then(async r => done({status: r.status, body: await r.json().catch(() => null)}));
        """, method, path, body)

    def signup(self):
        self.d.delete_all_cookies()
        self.open()
        self.d.execute_script("localStorage.clear()")
        self.d.refresh()
        self.username = "u" + uuid.uuid4().hex[:10]
        self.click("button.link")  # "New here? Create an account"
        self.css("#username").send_keys(self.username)
        self.css("#password").send_keys("correct horse battery")
        self.click("form button[type=submit]")  # "Sign up"
        self.css(".net-worth")
        return self

    def accounts(self):
        return self.api("GET", "/accounts")["body"]

    def switch_account(self, market):
        account = next(a for a in self.accounts() if a["market"] == market)
        self.select_account(account)
        return account

    def select_account(self, account):
        """Picks `account` (an /accounts entry) in the header's switcher, on the home screen."""
        self.go("")
        # The home screen re-renders as its data arrives; a switcher found just before that is stale, so find it again.
        for attempt in range(5):
            try:
                Select(self.css("select.account-switcher")).select_by_value(account["id"])
                break
            except StaleElementReferenceException:
                if attempt == 4:
                    raise
        self.wait.until(lambda d: account["name"] in d.find_element(By.CSS_SELECTOR, "main h1").text)

    def open_trade(self, symbol, side):
        self.go(f"stock/{symbol}")
        self.css(".stock-title h1")
        self.click(f".trade-bar .{side}")
        return self.visible("dialog[open] #qty")

    def set_qty(self, qty):
        field = self.visible("dialog[open] #qty")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.DELETE)
        if qty:
            field.send_keys(qty)

    def trade(self, symbol, side, qty):
        self.open_trade(symbol, side)
        self.set_qty(qty)
        self.button("Review order", within="dialog")
        self.button(f"Confirm {side}", within="dialog")

    def favorites_order(self):
        return self.d.execute_script("return [...document.querySelectorAll('.favorites [data-symbol]')].map(r => r.dataset.symbol)")

    def text(self, selector):
        """The text of the first match once it exists (read in one step: live rows are re-rendered often)."""
        self.css(selector)
        return self.d.execute_script("return document.querySelector(arguments[0])?.innerText ?? ''", selector)

    def value(self, selector):
        """The value of the first matching input once it exists (read in one step, as `text`)."""
        self.css(selector)
        return self.d.execute_script("return document.querySelector(arguments[0])?.value ?? ''", selector)

    def settled(self):
        """Waits until the app is quiet: none of its requests in flight (api.js marks <html data-loading>), the
        loading placeholders gone, and two frames drawn since (layout, charts' resize callbacks). A busy machine
        only makes this take longer."""
        quiet = """
            const done = arguments[0];
            const idle = () => !('loading' in document.documentElement.dataset) && !document.querySelector('main .loading');
            if (!idle()) return done(false);
            requestAnimationFrame(() => requestAnimationFrame(() => done(idle())));
        """
        self.wait.until(lambda d: d.execute_async_script(quiet))

    def still(self):
        """Waits until nothing on the page is moving (a sheet's slide-in, a toast's fade; endless animations such as
        spinners aside): a click computed on a moving button lands beside it, and a half-faded toast measures as faint
        text."""
        self.wait.until(lambda d: d.execute_script(
            "return document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)"))

    def shot(self, name):
        for label, (w, h) in (("phone", PHONE), ("desktop", DESKTOP)):
            self.size(w, h)
            self.settled()
            self.d.save_screenshot(os.path.join(SCREENSHOTS, f"{name}-{label}.png"))
        self.size(*PHONE)

    def overflow(self, width=320):
        """Widest horizontal overflow at `width` px (0 = nothing sticks out)."""
        self.size(width, 700)
        self.settled()
        extra = self.d.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        self.size(*PHONE)
        return extra


