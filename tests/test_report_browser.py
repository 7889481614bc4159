"""The HTML report in a real headless Chromium (selenium + chromedriver): every page renders and is
kept as a screenshot (build/test-artifacts/report/), the transaction browser's filters, search,
sorting, CDA modes and expandable rows work, and hostile names from the scanned code stay text.

The store comes from a real survey of two applications: the `ledger` sample and an application
generated here whose file, folder, application name, string literals and diagnostics carry
markup (`<script>`, `<img onerror>`, quotes, `</script>`, U+2028, `|`).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import ROOT

from analyzer.config import Config
from analyzer.report import plots, render
from analyzer.survey import manifest, runner

ARTIFACTS = ROOT / "build" / "test-artifacts" / "report"
SCRIPT = "<script>alert(1)</script>"
IMG_FILE = "<img src=x onerror=alert(2)>.py"
BAD_FILE = "\"quoted\" & 'apos' <b>bold</b>.py".replace("/", "-")
# Manifests refuse slashes in names, so the name opens a script and an HTML comment without closing them.
HOSTILE_APP = "<script>alert(5)<!-- \"co\" & 'shop' <img src=x onerror=alert(6)>\u2028|x"
JS_APP = "javascript-url"
HOSTILE_URL = "https://github.com/example/hostile"
COMMIT = "0123456789abcdef0123456789abcdef01234567"

MODELS = '''\
from django.db import models


class Account(models.Model):
    email = models.CharField(max_length=100)
    balance = models.IntegerField(default=0)


class Entry(models.Model):
    account = models.ForeignKey(Account, on_delete=models.CASCADE)
    amount = models.IntegerField()
'''

PAYMENTS = '''\
import requests
from django.db import transaction
from django.db.models import F

from shop.models import Account, Entry


@transaction.atomic
def pay_script_alert(account_id):
    account = Account.objects.get(email="<script>alert(1)</script>")
    requests.post("https://example.com/</script><script>alert(3)</script>")
    account.balance = account.balance + 1
    account.save()


@transaction.atomic
def credit(account_id, amount):
    Account.objects.filter(pk=account_id).update(balance=F("balance") + amount)


@transaction.atomic
def close_quoted(email):
    account = Account.objects.get(email="\\" onmouseover=\\"alert(6)\\" ' </script> \\u2028 | pipe")
    Entry.objects.filter(account=account).delete()
    account.delete()


@transaction.atomic
def settle_all():
    for account in Account.objects.filter(balance__lt=0):
        Entry.objects.create(account=account, amount=-account.balance)
'''


def _write_hostile_app(checkout: Path) -> None:
    package = checkout / "src" / "shop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(MODELS)
    (package / IMG_FILE).write_text(PAYMENTS)
    (package / BAD_FILE).write_text('def broken(:\n    "<b>not bold</b>"\n')


def _toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\u2028", "\\u2028") + '"'


def _manifest(path: Path) -> Path:
    path.write_text(
        f"[[app]]\nname = {_toml(HOSTILE_APP)}\norm = \"django\"\ncheckout = \"hostile\"\nsubdir = \"src\"\n"
        f"url = {_toml(HOSTILE_URL)}\ncommit = \"{COMMIT}\"\n\n"
        f"[[app]]\nname = \"{JS_APP}\"\norm = \"django\"\ncheckout = \"hostile\"\nsubdir = \"src\"\n"
        f"url = \"javascript:alert(4)\"\ncommit = \"{COMMIT}\"\n\n"
        "[[app]]\nname = \"ledger\"\norm = \"django\"\ncheckout = \"ledger\"\n")
    return path


class Quiet(runner.Reporter):
    def __init__(self, total):
        super().__init__(total, stream=open(os.devnull, "w"))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    _write_hostile_app(base / "checkouts" / "hostile")
    shutil.copytree(ROOT / "corpus" / "samples" / "django" / "ledger", base / "checkouts" / "ledger")
    apps = manifest.load(_manifest(base / "manifest.toml"))
    runner.run(apps, base / "checkouts", base / "s.db", Config(), reporter=Quiet(len(apps)))
    _mark_incomplete(base / "s.db", "%close_quoted")
    render.write(base / "s.db", base / "out")
    return base


def _mark_incomplete(path: Path, function: str) -> None:
    """Record completeness as the store's `complete` / `incomplete` columns do (added if this schema lacks them)."""
    db = sqlite3.connect(path)
    present = {row[1] for row in db.execute("PRAGMA table_info(transactions)")}
    if "complete" not in present:
        db.execute("ALTER TABLE transactions ADD COLUMN complete INTEGER NOT NULL DEFAULT 1")
    if "incomplete" not in present:
        db.execute("ALTER TABLE transactions ADD COLUMN incomplete TEXT")
    db.execute("UPDATE transactions SET complete = 0, incomplete = ? WHERE function LIKE ?",
               ('[{"file": "shop/<b>bold</b>.py", "line": 4, "reason": "unresolved call <script>alert(7)</script>"}]',
                function))
    db.commit()
    db.close()


def chromium_session():
    """One headless Chromium for a test module (a generator for a module-scoped fixture)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        webdriver = None
    if chromium is None or driver_path is None or webdriver is None:
        if os.environ.get("TXSCAN_REQUIRE_BROWSER"):
            pytest.fail("chromium, chromedriver and selenium are required (TXSCAN_REQUIRE_BROWSER is set)")
        pytest.skip("chromium, chromedriver or selenium is not installed")

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", "--disable-background-networking", "--no-first-run"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def browser():
    yield from chromium_session()


def _open(driver, path: Path) -> None:
    driver.get(path.as_uri())
    _no_alert(driver)


def _no_alert(driver) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        text = driver.switch_to.alert.text
    except NoAlertPresentException:
        return
    pytest.fail(f"a script from the scanned code ran: alert({text!r})")


def _pages(out: Path) -> list[Path]:
    return [out / "index.html", out / "transactions.html", *sorted((out / "apps").glob("*.html"))]


def _screenshot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(max(height, 600), 8000))
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.set_window_size(1280, 1000)
    return path


def _sql(report, query: str, *params) -> list[tuple]:
    db = sqlite3.connect(f"file:{report / 's.db'}?mode=ro", uri=True)
    try:
        return db.execute(query, params).fetchall()
    finally:
        db.close()


# Elements the scanned code must never create, and our own scripts (the JSON data and the browser code).
INJECTED = """
return {
  imgs: Array.from(document.querySelectorAll('img')).filter(i => !/figures\\/[a-z_]+\\.svg$/.test(i.getAttribute('src'))).length,
  onattrs: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
  bold: Array.from(document.querySelectorAll('b')).filter(b => b.textContent.indexOf('bold') >= 0).length,
  scripts: Array.from(document.querySelectorAll('script')).map(s => s.type || 'text/javascript'),
  jslinks: Array.from(document.querySelectorAll('[href]')).filter(a => !/^(https?:|file:|[a-z0-9_.\\/-]+(#|$)|#|\\.\\.\\/)/i.test(a.getAttribute('href'))).map(a => a.getAttribute('href')),
  text: document.body.textContent,
};
"""


def test_every_page_renders_keeps_hostile_strings_as_text_and_is_screenshotted(report, browser):
    pages = _pages(report / "out")
    assert len(pages) == 5  # index, transactions and one page per application
    for page in pages:
        _open(browser, page)
        found = browser.execute_script(INJECTED)
        assert found["imgs"] == 0 and found["onattrs"] == 0 and found["bold"] == 0, (page.name, found)
        assert not found["jslinks"], (page.name, found["jslinks"])
        expected_scripts = [] if page.name == "index.html" else ["application/json", "text/javascript"]
        assert found["scripts"] == expected_scripts, page.name
        if page.name in ("index.html", "transactions.html") or page == _hostile_page(report):
            assert HOSTILE_APP.split(" ")[0] in found["text"], page.name
        if page.name not in ("ledger.html", "index.html"):
            assert SCRIPT in found["text"], page.name
        _screenshot(browser, "page-" + page.stem[:40].replace("<", "").replace(">", ""))
    _open(browser, report / "out" / "transactions.html")
    text = browser.execute_script("return document.body.textContent")
    assert IMG_FILE in text and HOSTILE_APP in text.replace("\n", "")
    # The hostile string literals stay literal inside the expanded details (read set here; code on the app page).
    browser.execute_script("document.querySelectorAll('button.expand').forEach(b => b.click())")
    _no_alert(browser)
    assert 'Account[email="<script>alert(1)</script>"]' in _open_details(browser)
    _open(browser, _hostile_page(report))
    browser.execute_script("document.querySelectorAll('button.expand').forEach(b => b.click())")
    _no_alert(browser)
    details = _open_details(browser)
    assert 'requests.post("https://example.com/</script><script>alert(3)</script>")' in details
    assert 'Account[email="<script>alert(1)</script>"]' in details
    assert '\\" onmouseover=\\"alert(6)\\" \' </script>' in details
    assert "shop/<b>bold</b>.py:4 unresolved call <script>alert(7)</script>" in details
    assert browser.execute_script(INJECTED)["onattrs"] == 0


def _open_details(driver) -> str:
    return driver.execute_script("return Array.from(document.querySelectorAll('tr.detail')).filter(r => !r.hidden)"
                                 ".map(r => r.textContent).join('\\n')")


def _hostile_page(report) -> Path:
    return next(p for p in _pages(report / "out")[2:] if p.name not in ("ledger.html", f"{JS_APP}.html"))


def test_a_transaction_links_to_its_code_on_the_application_page_opened_there(report, browser):
    from selenium.webdriver.common.by import By

    _open(browser, report / "out" / "transactions.html")
    _select(browser, "f-app", "ledger")
    # An explicit transaction (an autocommit statement's code is its one call).
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#transactions-pk tr.txn:not([hidden])")
               if "autocommit" not in r.text)
    row.find_element(By.CSS_SELECTOR, "button.expand").click()
    detail = browser.find_element(By.ID, row.find_element(By.CSS_SELECTOR, "button.expand").get_attribute("aria-controls"))
    detail.find_element(By.CSS_SELECTOR, "a.full").click()
    assert browser.current_url.split("#")[0].endswith("/apps/ledger.html")
    opened = browser.find_element(By.ID, browser.current_url.split("#")[1])
    assert opened.find_element(By.CSS_SELECTOR, "button.expand").get_attribute("aria-expanded") == "true"
    code = browser.find_element(By.ID, "d-" + opened.get_attribute("id")[2:]).find_element(By.TAG_NAME, "pre")
    assert code.is_displayed() and "atomic" in code.text


def test_diagnostics_are_listed_per_application_with_hostile_file_names_as_text(report, browser):
    _open(browser, _hostile_page(report))
    rows = browser.execute_script("return Array.from(document.querySelectorAll('#diagnostics-table tbody tr'))"
                                  ".map(r => Array.from(r.cells).map(c => c.textContent))")
    stored = _sql(report, "SELECT d.file, d.line, d.code FROM diagnostics d JOIN apps a ON a.id = d.app_id"
                          " WHERE a.name = ? ORDER BY d.file, d.line, d.code, d.message", HOSTILE_APP)
    assert [(r[0], r[1]) for r in rows] == [(f"{f}:{n}", c) for f, n, c in stored]
    assert any(BAD_FILE in r[0] and r[1] == "parse-error" for r in rows)


def test_locations_link_to_the_source_at_the_pinned_commit_and_only_web_urls_become_links(report, browser):
    _open(browser, report / "out" / "transactions.html")
    links = browser.execute_script("return Array.from(document.querySelectorAll('#transactions-pk a.src'))"
                                   ".map(a => [a.textContent, a.href])")
    line = _sql(report, "SELECT t.line FROM transactions t JOIN apps a ON a.id = t.app_id WHERE a.name = ?"
                        " AND t.cda_mode = 'pk' AND t.function LIKE '%pay_script_alert'", HOSTILE_APP)[0][0]
    quoted = "%3Cimg%20src%3Dx%20onerror%3Dalert%282%29%3E.py"
    assert [f"shop/{IMG_FILE}:{line}",
            f"{HOSTILE_URL}/blob/{COMMIT}/src/shop/{quoted}#L{line}"] in links
    # The application with a javascript: URL and the sample without a URL get no links at all.
    hrefs = {href for _, href in links}
    assert all(href.startswith(f"{HOSTILE_URL}/blob/{COMMIT}/src/") for href in hrefs)
    rows_with_links = browser.execute_script(
        "return Array.from(document.querySelectorAll('#transactions-pk tr.txn')).filter(r => r.querySelector('a.src'))"
        ".map(r => r.dataset.app)")
    assert set(rows_with_links) == {HOSTILE_APP}


def _visible(driver, mode: str = "pk") -> list[dict]:
    return driver.execute_script(
        f"return Array.from(document.querySelectorAll('#transactions-{mode} tr.txn')).filter(r => !r.hidden)"
        ".map(r => Object.assign({}, r.dataset))")


def _select(driver, element_id: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    # By index: selenium's select_by_value builds a CSS selector that a name with U+2028 breaks.
    element = driver.find_element(By.ID, element_id)
    index = driver.execute_script("return Array.from(arguments[0].options).findIndex(o => o.value === arguments[1])",
                                  element, value)
    assert index >= 0, (element_id, value)
    Select(element).select_by_index(index)


def test_filters_hide_exactly_the_rows_that_do_not_match(report, browser):
    from selenium.webdriver.common.by import By

    _open(browser, report / "out" / "transactions.html")
    _select(browser, "f-scope", "all")  # the store's rows: explicit and autocommit ones
    total = _sql(report, "SELECT count(*) FROM transactions WHERE cda_mode = 'pk'")[0][0]
    assert len(_visible(browser)) == total
    browser.find_element(By.CSS_SELECTOR, '#filters button[data-verdict="interactive-strict"]').click()
    rows = _visible(browser)
    strict = _sql(report, "SELECT count(*) FROM transactions WHERE cda_mode = 'pk'"
                          " AND interactivity = 'interactive-strict'")[0][0]
    assert 0 < len(rows) == strict < total and {r["verdict"] for r in rows} == {"interactive-strict"}
    assert browser.find_element(By.ID, "shown").text == f"{strict} of {total} transactions shown"
    browser.find_element(By.CSS_SELECTOR, '#filters button[data-verdict=""]').click()

    checks = [
        ("f-app", HOSTILE_APP, ("SELECT count(*) FROM transactions t JOIN apps a ON a.id = t.app_id"
                               " WHERE t.cda_mode = 'pk' AND a.name = ?"), "app"),
        ("f-rw", "full", "SELECT count(*) FROM transactions WHERE cda_mode = 'pk' AND rw_inferable = ?", "rw"),
        ("f-reason", "http", ("SELECT count(DISTINCT t.id) FROM transactions t JOIN reasons r ON r.transaction_id = t.id"
                             " WHERE t.cda_mode = 'pk' AND r.category = ?"), None),
        ("f-mismatch", "yes", ("SELECT count(*) FROM transactions t WHERE t.cda_mode = 'pk' AND ? = 'yes' AND EXISTS"
                              " (SELECT 1 FROM statements s WHERE s.transaction_id = t.id"
                              " AND s.inferability = 'cda-mismatch')"), "mismatch"),
    ]
    for element_id, value, query, attribute in checks:
        _select(browser, element_id, value)
        rows = _visible(browser)
        assert 0 < len(rows) == _sql(report, query, value)[0][0] < total, element_id
        if attribute:
            assert {r[attribute] for r in rows} == {value}, element_id
        else:
            assert all(f"|{value}|" in r["reasons"] for r in rows)
        _select(browser, element_id, "")
    assert len(_visible(browser)) == total


def test_incomplete_transactions_are_marked_and_filterable(report, browser):
    _open(browser, report / "out" / "transactions.html")
    _select(browser, "f-scope", "all")  # the store's rows: explicit and autocommit ones
    _select(browser, "f-complete", "no")
    rows = _visible(browser)
    incomplete = _sql(report, "SELECT count(*) FROM transactions WHERE cda_mode = 'pk' AND complete = 0")[0][0]
    # close_quoted calls a handler the walk cannot resolve, in both generated applications.
    assert len(rows) == incomplete and "close_quoted" in {r["sortFunction"].rsplit(".", 1)[-1] for r in rows}
    badges = browser.execute_script("return Array.from(document.querySelectorAll('#transactions-pk tr.txn'))"
                                    ".filter(r => !r.hidden).map(r => r.querySelector('.badge.incomplete').textContent)")
    assert badges == ["incomplete"] * incomplete
    _select(browser, "f-complete", "yes")
    total = _sql(report, "SELECT count(*) FROM transactions WHERE cda_mode = 'pk'")[0][0]
    assert len(_visible(browser)) == total - incomplete and all(r["complete"] == "yes" for r in _visible(browser))


def test_markdown_summary_escapes_table_breaking_characters(report):
    lines = (report / "out" / "summary.md").read_text().splitlines()
    table = [line for line in lines if line.startswith("| ") and "| django |" in line]
    header = next(line for line in lines if line.startswith("| application |"))
    cells = len(re.split(r"(?<!\\)\|", header))
    assert len(table) == 3 and all(len(re.split(r"(?<!\\)\|", line)) == cells for line in table)
    hostile = next(line for line in table if "alert" in line)
    assert "<" not in hostile.replace("\\<", "") and "\u2028" not in hostile


def test_search_and_cda_modes(report, browser):
    from selenium.webdriver.common.by import By

    _open(browser, report / "out" / "transactions.html")
    _select(browser, "f-scope", "all")  # the store's rows: explicit and autocommit ones
    search = browser.find_element(By.ID, "search")
    search.send_keys("pay_script_alert")
    rows = _visible(browser)
    assert len(rows) == 2 and {r["app"] for r in rows} == {HOSTILE_APP, JS_APP}
    search.clear()
    search.send_keys('onmouseover=\\"alert(6)\\" ACCOUNT[')  # every word must match; quotes are plain text
    assert {r["sortFunction"].rsplit(".", 1)[-1] for r in _visible(browser)} == {"close_quoted"}
    search.clear()
    search.send_keys(" ")
    _select(browser, "f-mode", "auto")
    assert not browser.find_element(By.ID, "transactions-auto").get_attribute("hidden")
    assert browser.find_element(By.ID, "transactions-pk").get_attribute("hidden")
    auto = _visible(browser, "auto")
    stored = _sql(report, "SELECT a.name, t.rw_inferable FROM transactions t JOIN apps a ON a.id = t.app_id"
                          " WHERE t.cda_mode = 'auto'")
    assert sorted((r["app"], r["rw"]) for r in auto) == sorted(stored)


def test_sorting_by_a_column_keeps_each_detail_row_under_its_transaction(report, browser):
    from selenium.webdriver.common.by import By

    _open(browser, report / "out" / "transactions.html")
    header = browser.find_element(By.CSS_SELECTOR, '#transactions-pk th[data-key="statements"] button')
    header.click()
    counts = [int(r["sortStatements"]) for r in _visible(browser)]
    assert counts == sorted(counts) and counts[0] < counts[-1]
    header.click()
    counts = [int(r["sortStatements"]) for r in _visible(browser)]
    assert counts == sorted(counts, reverse=True)
    browser.find_element(By.CSS_SELECTOR, '#transactions-pk th[data-key="verdict"] button').click()
    ranks = [int(r["sortVerdict"]) for r in _visible(browser)]
    assert ranks == sorted(ranks)
    pairs = browser.execute_script(
        "var rows = Array.from(document.querySelectorAll('#transactions-pk tbody > tr'));"
        "return rows.map((r, i) => r.classList.contains('txn') ? [r.querySelector('button.expand')"
        ".getAttribute('aria-controls'), rows[i + 1].id] : null).filter(Boolean)")
    assert pairs and all(control == detail for control, detail in pairs)


COLUMN_WIDTHS = ("return Array.from(document.querySelectorAll('#transactions-pk > thead > tr > th'))"
                 ".map(th => th.getBoundingClientRect().width)")


def test_expanding_a_row_keeps_every_column_width_and_the_page_width(report, browser):
    from selenium.webdriver.common.by import By

    _open(browser, report / "out" / "transactions.html")
    before = browser.execute_script(COLUMN_WIDTHS)
    page_width = browser.execute_script("return document.documentElement.scrollWidth")
    # The transaction with the most suggestions has the widest code in its details.
    longest = browser.execute_script(
        "var best = null, size = -1; document.querySelectorAll('#transactions-pk tr.detail').forEach(function (d) {"
        "  if (d.textContent.length > size) { size = d.textContent.length; best = d.id; } }); return best;")
    button = browser.find_element(By.CSS_SELECTOR, f'button[aria-controls="{longest}"]')
    browser.execute_script("arguments[0].scrollIntoView()", button)
    button.click()
    assert browser.find_element(By.ID, longest).is_displayed()
    assert browser.execute_script(COLUMN_WIDTHS) == pytest.approx(before, abs=0.5)
    assert browser.execute_script("return document.documentElement.scrollWidth") == page_width
    _screenshot(browser, "transactions-expanded")
    button.click()
    assert not browser.find_element(By.ID, longest).is_displayed()


# A word (a run of letters and digits) split across two lines has rects on two lines. A word wider than its
# cell cannot fit on one line and may break; any other break inside a word is a defect.
BROKEN_WORDS = """
var broken = [];
document.querySelectorAll(arguments[0]).forEach(function (cell) {
  if (cell.closest('[hidden]') || cell.closest('tr.detail')) { return; }
  var style = getComputedStyle(cell);
  var room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  var walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    var re = /[A-Za-z0-9]+/g, m;
    while ((m = re.exec(node.data))) {
      var range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      var rects = Array.from(range.getClientRects()).filter(r => r.width > 0);
      var lines = new Set(rects.map(r => Math.round(r.top)));
      var width = rects.reduce((sum, r) => sum + r.width, 0);
      if (lines.size > 1 && width <= room) { broken.push(m[0] + ' in ' + cell.textContent.slice(0, 60)); }
    }
  }
});
return broken;
"""


def test_no_word_is_broken_inside_a_table_cell_or_header(report, browser):
    for page in _pages(report / "out"):
        _open(browser, page)
        assert browser.execute_script(BROKEN_WORDS, "th, td") == [], page.name
        overflowing = browser.execute_script(
            "return Array.from(document.querySelectorAll('th')).filter(th => !th.closest('[hidden]')"
            " && th.scrollWidth > th.clientWidth + 1).map(th => th.textContent)")
        assert overflowing == [], page.name


def loaded_resources(driver) -> list[list]:
    """[tag, URL, loaded] of everything the open page loads (images, scripts, styles, frames)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('img, script[src], link[href], iframe, object, embed'))"
        ".map(e => [e.tagName, e.src || e.href || e.data,"
        "           e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0)])")


def test_the_report_loads_nothing_from_the_network_and_every_figure_loads(report, browser):
    for page in _pages(report / "out"):
        _open(browser, page)
        loaded = loaded_resources(browser)
        assert all(url.startswith("file:") and ok for _tag, url, ok in loaded), (page.name, loaded)
        # index.html: the figures; every page with a transaction browser: the one shared browser.js.
        if page.name == "index.html":
            assert len(loaded) == len(plots.FIGURES), page.name
        else:
            assert [(tag, url.rsplit("/out/", 1)[-1]) for tag, url, _ok in loaded] == [("SCRIPT", "browser.js")], page.name
