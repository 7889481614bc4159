"""`txscan report`: HTML with every table and figure, Markdown, CSV/JSON, deterministic, and
rendered for real in headless Chromium."""

from __future__ import annotations

import csv
import json
import re
import shutil
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT
from test_report_browser import _open, _pages, _screenshot, chromium_session, loaded_resources

from analyzer import store
from analyzer.config import Config
from analyzer.report import escape, metrics, plots, render
from analyzer.survey import manifest, runner

FIGURES = [f.__name__ for f in plots.FIGURES]

class Quiet(runner.Reporter):
    def __init__(self, total):
        super().__init__(total, stream=open("/dev/null", "w"))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    apps = manifest.load(ROOT / "corpus" / "samples.toml")
    runner.run(apps, ROOT / "corpus" / "samples", base / "s.db", Config(), reporter=Quiet(len(apps)))
    render.write(base / "s.db", base / "out")
    return base


@pytest.fixture(scope="module")
def report_without_autocommit(report, tmp_path_factory):
    """The same survey as a store made before autocommit statements were recorded (explicit only)."""
    base = tmp_path_factory.mktemp("explicit")
    shutil.copy(report / "s.db", base / "s.db")
    db = sqlite3.connect(base / "s.db")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("DELETE FROM transactions WHERE boundary = 'autocommit'")
    db.commit()
    db.close()
    render.write(base / "s.db", base / "out")
    return base


def test_the_sample_survey_records_autocommit_statements(report):
    data = json.loads((report / "out" / "metrics.json").read_text())
    assert data["autocommit_measured"] is True
    assert data["pk"]["survey"]["scopes"]["autocommit"]["transactions"] > 0
    assert 'id="autocommit-note"' not in (report / "out" / "index.html").read_text()


class Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.images, self.links, self.external = set(), [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.images.append(attrs["src"])
        if tag in ("a", "link", "script") and (attrs.get("href") or attrs.get("src")):
            target = attrs.get("href") or attrs.get("src")
            self.links.append(target)
        for value in attrs.values():
            if value and re.match(r"^(https?:)?//", value) and tag in ("link", "script", "img"):
                self.external.append(value)


def parse(path: Path) -> Elements:
    parser = Elements()
    parser.feed(path.read_text("utf-8"))
    return parser


def test_index_has_every_table_and_figure(report):
    out = report / "out"
    index = parse(out / "index.html")
    assert {"survey-figures", "applications-table", "reasons-table", "diagnostics-table"} <= index.ids
    names = {"headline", "interactive_share", "fully_inferable_cdf", "mismatches", "strict_reasons", "rewrites"}
    assert set(FIGURES) == names
    assert len(index.images) == len(FIGURES)
    for image in index.images:
        for suffix in ("svg", "png"):
            assert (out / image).with_suffix(f".{suffix}").stat().st_size > 1000
    assert not index.external, "the report must work offline"
    text = (out / "index.html").read_text()
    assert "39.0%" in text and "9.6%" in text and "90.0%" in text  # the study's figures beside ours


def test_every_figure_has_a_caption_with_its_reading_n_and_the_studys_value(report_without_autocommit):
    html = (report_without_autocommit / "out" / "index.html").read_text()
    captions = re.findall(r'<figure id="figure-([a-z_]+)">.*?<figcaption><b>([^<]+)</b>(.*?)</figcaption>', html, re.DOTALL)
    assert [c[0] for c in captions] == [
        "headline", "interactive_share", "fully_inferable_cdf", "cda_mismatch_by_api", "strict_reasons", "rewrites"]
    for name, title, caption in captions:
        assert title and len(caption) > 200, name
        assert re.search(r"N = \d+|N: \d+|\d+ applications", caption), name
        assert "study" in caption, name
        # The store has no autocommit rows: every figure whose denominator depends on them says so.
        if name in ("headline", "interactive_share", "fully_inferable_cdf"):
            assert "no autocommit rows" in caption, name
    # Both CDA modes: the inferability CDF differs between them on the samples, so both are drawn.
    assert "The CDA modes differ, so both are drawn: pk solid blue" in {c[0]: c[2] for c in captions}["fully_inferable_cdf"]
    svg = (report_without_autocommit / "out" / "figures" / "fully_inferable_cdf.svg").read_text()
    assert "<svg" in svg and "Date" not in svg


SAMPLE_APPS = manifest.load(ROOT / "corpus" / "samples.toml")


def test_pages_per_application_and_a_transaction_browser_per_mode(report):
    out = report / "out"
    for app in SAMPLE_APPS:
        page = parse(out / "apps" / f"{app.name}.html")
        assert {"app-metrics", "transactions-pk", "transactions-auto", "filters", "search", "diagnostics"} <= page.ids
    expected = sum(len(doc["transactions"]) + len(doc.get("autocommit", [])) for doc in (
        json.loads((app.folder(ROOT / "corpus" / "samples") / "expected.json").read_text()) for app in SAMPLE_APPS))
    listing = browser_data(out / "transactions.html")
    assert listing["modes"] == ["pk", "auto"]
    # One row per transaction, each present in both CDA modes, with one verdict per mode.
    assert len(listing["rows"]) == expected
    modes = listing["fields"].index("modes")
    assert all(None not in row[modes] for row in listing["rows"])
    verdicts = {listing["verdicts"][row[modes][0][0]] for row in listing["rows"]}
    assert verdicts == {"one-shot", "interactive-nonstrict", "interactive-strict"}
    assert {"f-app", "f-reason", "f-rw", "f-mismatch", "f-mode", "f-boundary", "f-scope", "pager"} <= \
        parse(out / "transactions.html").ids


def browser_data(path: Path) -> dict:
    """The transaction browser's data, as the page's script reads it."""
    text = path.read_text("utf-8")
    return json.loads(text.split('<script type="application/json" id="report-data">')[1].split("</script>")[0])


def test_diagnostics_listed_per_application(report):
    db = store.connect(report / "s.db")
    stored = dict(db.execute("SELECT a.name, count(d.app_id) FROM apps a LEFT JOIN diagnostics d ON d.app_id = a.id"
                             " GROUP BY a.name").fetchall())
    db.close()
    assert any(stored.values())
    for name, count in stored.items():
        html = (report / "out" / "apps" / f"{name}.html").read_text()
        assert f"Diagnostics ({count})" in html
        assert html.split('id="diagnostics-table"')[-1].split("</table>")[0].count("<tr>") == count + 1 if count \
            else "None: every file was read" in html


def test_exports(report):
    out = report / "out"
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert {r["app"] for r in rows} == {a.name for a in SAMPLE_APPS}
    assert {r["cda_mode"] for r in rows} == {"pk", "auto"}
    assert {r["scope"] for r in rows} == {"explicit", "autocommit", "all"}
    assert {r["frontend"] for r in rows} == {"django", "typeorm"}
    data = json.loads((out / "metrics.json").read_text())
    assert set(data["pk"]["survey"]["scopes"]["all"]["figures"]) == set(data["pk"]["survey"]["study"])
    assert data["autocommit_measured"] is True
    summary = (out / "summary.md").read_text()
    assert "| applications with no interactive transaction |" in summary
    assert "This store has no autocommit rows" not in summary and "autocommit statements" in summary


def test_exports_of_a_store_without_autocommit_rows(report_without_autocommit):
    data = json.loads((report_without_autocommit / "out" / "metrics.json").read_text())
    assert data["autocommit_measured"] is False
    assert "This store has no autocommit rows" in (report_without_autocommit / "out" / "summary.md").read_text()


def test_without_autocommit_rows_the_report_says_not_measured_instead_of_zero(report_without_autocommit):
    html = (report_without_autocommit / "out" / "index.html").read_text()
    assert 'id="autocommit-note"' in html
    table = html.split('id="survey-figures"')[1].split("</table>")[0]
    cells = re.findall(r'<td class="num" data-scope="(\w+)">(.*?)</td>', table)
    assert {text for scope, text in cells if scope != "explicit"} == {'<span class="muted">not measured</span>'}
    assert all(re.fullmatch(r"\d+\.\d% \(\d+/\d+\)", text) for scope, text in cells if scope == "explicit")


def _add_autocommit_rows(path: Path, app: str) -> int:
    """What the front ends will store for statements outside explicit transactions: one-shot, one statement."""
    db = sqlite3.connect(path)
    app_id = db.execute("SELECT id FROM apps WHERE name = ?", (app,)).fetchone()[0]
    added = 0
    for mode in ("pk", "auto"):
        for line, (rw, inferability) in enumerate([("full", "key"), ("none", "cda-mismatch"), ("full", "insert")],
                                                  start=900):
            tid = db.execute(
                "INSERT INTO transactions (app_id, cda_mode, txn_key, file, line, end_line, function, boundary,"
                " interactivity, rw_inferable, statements, read_set, write_set) VALUES"
                " (?, ?, ?, 'views.py', ?, ?, 'views.list', 'autocommit', 'one-shot', ?, 1, '[]', '[]')",
                (app_id, mode, f"views.py:{line}", line, line, rw)).lastrowid
            db.execute("INSERT INTO statements (transaction_id, step_id, file, line, entity, kind, api, attributes,"
                       " inferability, flags, via) VALUES (?, 's1', 'views.py', ?, 'Item', 'read', 'get', '[]', ?,"
                       " '[]', '[]')", (tid, line, inferability))
            added += mode == "pk"
    db.commit()
    db.close()
    return added


def test_three_denominators_from_autocommit_rows(report_without_autocommit, tmp_path):
    shutil.copy(report_without_autocommit / "s.db", tmp_path / "s.db")
    added = _add_autocommit_rows(tmp_path / "s.db", "shop")
    render.write(tmp_path / "s.db", tmp_path / "out")
    data = json.loads((tmp_path / "out" / "metrics.json").read_text())
    before = json.loads((report_without_autocommit / "out" / "metrics.json").read_text())
    assert data["autocommit_measured"] is True
    scopes = data["pk"]["survey"]["scopes"]
    explicit = before["pk"]["survey"]["scopes"]["explicit"]
    assert scopes["explicit"] == explicit
    assert scopes["autocommit"]["transactions"] == added and scopes["autocommit"]["applications"] == 1
    assert scopes["all"]["transactions"] == explicit["transactions"] + added
    # Autocommit statements are one-shot: they dilute the strict share; one of three is a CDA mismatch.
    assert scopes["autocommit"]["fractions"]["strict_share_of_all"] == [0, added]
    assert scopes["autocommit"]["fractions"]["cda_mismatch_share_of_transactions"] == [1, added]
    strict, total = explicit["fractions"]["strict_share_of_all"]
    assert scopes["all"]["fractions"]["strict_share_of_all"] == [strict, total + added]
    html = (tmp_path / "out" / "index.html").read_text()
    assert 'id="autocommit-note"' not in html and "not measured" not in html
    # Per application, all together beside explicit: shop's explicit transactions plus the added statements.
    table = html.split('id="applications-table"')[1].split("</table>")[0]
    assert '<th class="num">interactive (all)</th>' in table
    shop = next(a for a in data["pk"]["apps"] if a["app"] == "shop")
    assert shop["scopes"]["all"]["transactions"] == shop["scopes"]["explicit"]["transactions"] + added
    assert f"{100 * strict / (total + added):.1f}% ({strict}/{total + added})" in html
    caption = re.search(r'id="figure-fully_inferable_cdf">.*?</figcaption>', html, re.DOTALL).group()
    assert "no autocommit rows" not in caption


def test_incomplete_transactions_are_shown_and_filterable_when_the_store_records_them(report, tmp_path):
    shutil.copy(report / "s.db", tmp_path / "s.db")
    db = sqlite3.connect(tmp_path / "s.db")
    present = metrics.columns(db, "transactions")
    if "complete" not in present:
        db.execute("ALTER TABLE transactions ADD COLUMN complete INTEGER NOT NULL DEFAULT 1")
    if "incomplete" not in present:
        db.execute("ALTER TABLE transactions ADD COLUMN incomplete TEXT")
    # The samples have incomplete transactions of their own; two complete ones are marked too.
    already = db.execute("SELECT count(*) FROM transactions WHERE cda_mode = 'pk' AND complete = 0").fetchone()[0]
    db.execute("UPDATE transactions SET complete = 0, incomplete = ? WHERE txn_key IN (SELECT txn_key FROM"
               " transactions WHERE cda_mode = 'pk' AND complete = 1 ORDER BY id LIMIT 2)",
               (json.dumps([{"file": "x.py", "line": 3, "reason": "unresolved call <b>h()</b>"}]),))
    db.commit()
    db.close()
    render.write(tmp_path / "s.db", tmp_path / "out")
    listing = browser_data(tmp_path / "out" / "transactions.html")
    fields = {name: i for i, name in enumerate(listing["fields"])}
    incomplete = [row for row in listing["rows"] if row[fields["complete"]] == 0]
    assert len(incomplete) == already + 2 and 'id="f-complete"' in (tmp_path / "out" / "transactions.html").read_text()
    wheres = {listing["strings"][i] for row in incomplete for i in row[fields["incomplete"]]}
    assert "x.py:3 unresolved call <b>h()</b>" in wheres  # data; the page shows it as text (test_report_browser)
    assert "<th class=\"num\">incomplete</th>" in (tmp_path / "out" / "index.html").read_text()


def test_script_json_cannot_end_the_script_element():
    hostile = ["</script><script>alert(1)</script>", "<!--", "a\u2028b\u2029c", "&amp; 'q'"]
    text = str(escape.script_json(hostile))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text and "'" not in text
    assert json.loads(text) == hostile


def test_markdown_cells_cannot_break_a_table():
    cell = escape.markdown("a | b\nc <img src=x> `d` [e](f) *g*")
    assert re.split(r"(?<!\\)\|", cell) == [cell] and "\n" not in cell and "<" not in cell.replace("\\<", "")


def test_report_is_byte_identical_across_runs(report, tmp_path):
    render.write(report / "s.db", tmp_path / "again")
    first = {p.relative_to(report / "out"): p.read_bytes() for p in (report / "out").rglob("*") if p.is_file()}
    second = {p.relative_to(tmp_path / "again"): p.read_bytes() for p in (tmp_path / "again").rglob("*") if p.is_file()}
    assert first == second


@pytest.fixture(scope="module")
def browser():
    yield from chromium_session()


def test_sample_report_renders_in_headless_chromium(report, browser):
    """Every page of the samples' report in a real browser: figures load, no script error, kept as screenshots."""
    for page in _pages(report / "out"):
        _open(browser, page)
        loaded = loaded_resources(browser)
        assert all(url.startswith("file:") and ok for _tag, url, ok in loaded), (page.name, loaded)
        assert len(loaded) == (len(FIGURES) if page.name == "index.html" else 1)  # the shared browser.js
        assert browser.execute_script("return document.querySelectorAll('table').length") >= 2, page.name
        if page.name != "index.html":  # the browser script ran and counted the rows
            shown = browser.execute_script("return document.getElementById('shown').textContent")
            # explicit transactions are shown first; every row once the scope is "all together"
            assert re.fullmatch(r"\d+ of \d+ transactions shown", shown), page.name
            browser.execute_script("var s = document.getElementById('f-scope'); s.value = 'all';"
                                   " s.dispatchEvent(new Event('change'))")
            shown = browser.execute_script("return document.getElementById('shown').textContent")
            assert re.fullmatch(r"(\d+) of \1 transactions shown", shown), page.name
        _screenshot(browser, f"sample-{page.stem}")


def test_report_does_not_change_when_the_same_code_is_scanned_again(report, tmp_path):
    apps = manifest.load(ROOT / "corpus" / "samples.toml")
    runner.run(apps, ROOT / "corpus" / "samples", tmp_path / "again.db", Config(), reporter=Quiet(len(apps)))
    render.write(tmp_path / "again.db", tmp_path / "out")
    first = {p.relative_to(report / "out"): p.read_bytes() for p in (report / "out").rglob("*") if p.is_file()}
    second = {p.relative_to(tmp_path / "out"): p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert first == second
