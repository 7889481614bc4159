"""`txscan report`: HTML with every table and figure, Markdown, CSV/JSON, deterministic, and
rendered for real in headless Chromium."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from analyzer.config import Config
from analyzer.report import render
from analyzer.survey import manifest, runner
from conftest import ROOT

FIGURES = ["interactive_share", "fully_inferable_cdf", "cda_mismatch_by_api", "strict_reasons", "rewrites"]


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
    assert {"survey-figures", "applications-table", "reasons-table"} <= index.ids
    for mode in ("pk", "auto"):
        for figure in FIGURES:
            assert f"figures/{figure}_{mode}.svg" in index.images
            for suffix in ("svg", "png"):
                assert (out / "figures" / f"{figure}_{mode}.{suffix}").stat().st_size > 1000
    assert not index.external, "the report must work offline"
    text = (out / "index.html").read_text()
    assert "39.0%" in text and "9.6%" in text and "90.0%" in text  # the study's figures beside ours


SAMPLE_APPS = manifest.load(ROOT / "corpus" / "samples.toml")


def test_pages_per_application_and_filterable_transaction_list(report):
    out = report / "out"
    for app in SAMPLE_APPS:
        page = parse(out / "apps" / f"{app.name}.html")
        assert {"app-metrics", "transactions-table", "filters"} <= page.ids
    listing = (out / "transactions.html").read_text()
    expected = sum(len(json.loads((app.folder(ROOT / "corpus" / "samples") / "expected.json").read_text())["transactions"])
                   for app in SAMPLE_APPS)
    assert listing.count('class="txn"') == expected
    for verdict in ("one-shot", "interactive-nonstrict", "interactive-strict"):
        assert f'data-verdict="{verdict}"' in listing


def test_exports(report):
    out = report / "out"
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert {r["app"] for r in rows} == {a.name for a in SAMPLE_APPS}
    assert {r["cda_mode"] for r in rows} == {"pk", "auto"}
    assert {r["frontend"] for r in rows} == {"django", "typeorm"}
    data = json.loads((out / "metrics.json").read_text())
    assert set(data["pk"]["survey"]["figures"]) == set(data["pk"]["survey"]["study"])
    summary = (out / "summary.md").read_text()
    assert "| applications with no interactive transaction |" in summary


def test_report_is_byte_identical_across_runs(report, tmp_path):
    render.write(report / "s.db", tmp_path / "again")
    first = {p.relative_to(report / "out"): p.read_bytes() for p in (report / "out").rglob("*") if p.is_file()}
    second = {p.relative_to(tmp_path / "again"): p.read_bytes() for p in (tmp_path / "again").rglob("*") if p.is_file()}
    assert first == second


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def test_report_renders_in_headless_chromium(report, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("TXSCAN_REQUIRE_BROWSER"):
            pytest.fail("chromium is required (TXSCAN_REQUIRE_BROWSER is set) but not installed")
        pytest.skip("chromium is not installed")
    index = report / "out" / "index.html"
    base = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*base, "--dump-dom", index.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for marker in ('id="survey-figures"', 'id="applications-table"', "figures/fully_inferable_cdf_pk.svg"):
        assert marker in dom.stdout
    shot = tmp_path / "index.png"
    result = subprocess.run([*base, "--window-size=1280,2000", f"--screenshot={shot}", index.as_uri()],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and shot.stat().st_size > 50_000, result.stderr[-2000:]


def test_report_does_not_change_when_the_same_code_is_scanned_again(report, tmp_path):
    apps = manifest.load(ROOT / "corpus" / "samples.toml")
    runner.run(apps, ROOT / "corpus" / "samples", tmp_path / "again.db", Config(), reporter=Quiet(len(apps)))
    render.write(tmp_path / "again.db", tmp_path / "out")
    first = {p.relative_to(report / "out"): p.read_bytes() for p in (report / "out").rglob("*") if p.is_file()}
    second = {p.relative_to(tmp_path / "out"): p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert first == second
