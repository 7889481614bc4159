"""The report at a survey's scale: 40,000 transactions (in each CDA mode) in 128 applications, from the
synthetic store of scripts/gen_synthetic_store.py, rendered by `txscan report` and used in a real
headless Chromium: pages stay small enough to open, the transaction browser shows 100 rows at a time,
and its scope, verdict, application filters, search, sorting and pager give exactly the rows the
store holds. DOM checks only, no timings (the machine is shared)."""

from __future__ import annotations

import importlib.util
import sqlite3

import pytest
from conftest import ROOT
from test_report_browser import COLUMN_WIDTHS, _open, _screenshot, _select, _visible, chromium_session

from analyzer.report import browser as browser_data, render

TRANSACTIONS = 40000
PAGE = browser_data.PAGE_SIZE


def _generator():
    spec = importlib.util.spec_from_file_location("gen_synthetic_store", ROOT / "scripts" / "gen_synthetic_store.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    base = tmp_path_factory.mktemp("scale")
    counts = _generator().generate(base / "big.db", transactions=TRANSACTIONS, apps=128)
    render.write(base / "big.db", base / "out")
    return base, counts


@pytest.fixture(scope="module")
def chromium():
    yield from chromium_session()


def _sql(base, query: str, *params):
    db = sqlite3.connect(f"file:{base / 'big.db'}?mode=ro", uri=True)
    try:
        return db.execute(query, params).fetchall()
    finally:
        db.close()


def test_pages_stay_small_at_forty_thousand_transactions(big):
    base, counts = big
    assert counts["explicit"] + counts["autocommit"] == TRANSACTIONS
    out = base / "out"
    pages = [out / "transactions.html", out / "browser.js", out / "index.html", *sorted((out / "apps").glob("*.html"))]
    assert len(pages) == 3 + 128
    total = sum(p.stat().st_size for p in pages)
    listing = (out / "transactions.html").stat().st_size
    # Measured when written: 5.5 MB for the listing and 16.5 MB for every page together (each
    # application's page carries its own rows with their code). One HTML row per transaction and mode
    # (about 2.5 KB each) made some 200 MB for the listing alone.
    assert listing < 8_000_000, listing
    assert total < 20_000_000, total


def test_the_listing_shows_a_page_of_explicit_transactions_and_filters_every_one(big, chromium):
    from selenium.webdriver.common.by import By

    base, counts = big
    _open(chromium, base / "out" / "transactions.html")
    shown = chromium.find_element(By.ID, "shown").text
    assert shown == f"{counts['explicit']} of {TRANSACTIONS} transactions shown"
    rows = _visible(chromium)
    assert len(rows) == PAGE and "autocommit" not in {r["boundary"] for r in rows}
    pages = -(-counts["explicit"] // PAGE)
    assert chromium.find_element(By.ID, "page-info").text == f"rows 1\u2013{PAGE}, page 1 of {pages}"
    _screenshot(chromium, "scale-transactions")

    # Scope: the autocommit statements, then everything.
    _select(chromium, "f-scope", "autocommit")
    assert chromium.find_element(By.ID, "shown").text == f"{counts['autocommit']} of {TRANSACTIONS} transactions shown"
    assert {r["boundary"] for r in _visible(chromium)} == {"autocommit"}
    _select(chromium, "f-scope", "all")

    # An application and a verdict: the count the store gives, and only matching rows on every page.
    app = _sql(base, "SELECT a.name FROM apps a JOIN transactions t ON t.app_id = a.id WHERE t.cda_mode = 'pk'"
                     " GROUP BY a.id ORDER BY count(*) DESC LIMIT 1")[0][0]
    _select(chromium, "f-app", app)
    chromium.find_element(By.CSS_SELECTOR, '#filters button[data-verdict="interactive-nonstrict"]').click()
    expected = _sql(base, "SELECT count(*) FROM transactions t JOIN apps a ON a.id = t.app_id WHERE a.name = ?"
                          " AND t.cda_mode = 'pk' AND t.interactivity = 'interactive-nonstrict'", app)[0][0]
    assert PAGE < expected
    assert chromium.find_element(By.ID, "shown").text == f"{expected} of {TRANSACTIONS} transactions shown"
    seen = 0
    while True:
        rows = _visible(chromium)
        assert {(r["app"], r["verdict"]) for r in rows} == {(app, "interactive-nonstrict")}
        seen += len(rows)
        last = chromium.find_element(By.CSS_SELECTOR, '#pager button[data-page="next"]')
        if not last.is_enabled():
            break
        last.click()
    assert seen == expected
    chromium.find_element(By.CSS_SELECTOR, '#pager button[data-page="first"]').click()
    assert len(_visible(chromium)) == PAGE


def test_sorting_search_and_expanding_at_scale(big, chromium):
    from selenium.webdriver.common.by import By

    base, _counts = big
    _open(chromium, base / "out" / "transactions.html")
    _select(chromium, "f-scope", "all")
    header = chromium.find_element(By.CSS_SELECTOR, '#transactions-pk th[data-key="statements"] button')
    header.click()
    header.click()  # descending: the longest transactions of all 40,000 come first
    most = _sql(base, "SELECT max(statements) FROM transactions WHERE cda_mode = 'pk'")[0][0]
    counts = [int(r["sortStatements"]) for r in _visible(chromium)]
    assert counts[0] == most and counts == sorted(counts, reverse=True)

    function = _sql(base, "SELECT function FROM transactions WHERE cda_mode = 'pk' GROUP BY function"
                          " ORDER BY count(*) DESC, function LIMIT 1")[0][0]
    expected = _sql(base, "SELECT count(*) FROM transactions WHERE cda_mode = 'pk' AND function = ?", function)[0][0]
    search = chromium.find_element(By.ID, "search")
    search.send_keys(function)
    rows = _visible(chromium)
    assert len(rows) == expected and {r["sortFunction"] for r in rows} == {function}

    before = chromium.execute_script(COLUMN_WIDTHS)
    button = chromium.find_element(By.CSS_SELECTOR, "#transactions-pk tr.txn button.expand")
    button.click()
    detail = chromium.find_element(By.ID, button.get_attribute("aria-controls"))
    assert detail.is_displayed()
    statements = int(chromium.find_element(By.CSS_SELECTOR, "#transactions-pk tr.txn").get_attribute("data-sort-statements"))
    assert len(detail.find_elements(By.CSS_SELECTOR, "table.statements tbody tr")) == statements
    assert chromium.execute_script(COLUMN_WIDTHS) == pytest.approx(before, abs=0.5)
    link = detail.find_element(By.CSS_SELECTOR, "a.full")
    link.click()  # the application's page opens on that transaction, with its code
    opened = chromium.find_element(By.ID, chromium.current_url.split("#")[1])
    assert opened.find_element(By.CSS_SELECTOR, "button.expand").get_attribute("aria-expanded") == "true"
    assert chromium.find_element(By.ID, "d-" + opened.get_attribute("id")[2:]).find_element(By.TAG_NAME, "pre").text
    _screenshot(chromium, "scale-application")
