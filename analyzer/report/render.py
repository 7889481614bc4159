"""Write a report directory from a store: index.html, one page per application, the browsable
transaction list, summary.md (with the explanations of differences, explanations.py),
metrics.csv/json and the figures (figures/*.svg|png).

Everything is offline: CSS is inline; the transaction browser is one local script (browser.js) shared
by every page, each page carrying its own rows as inline JSON (browser.py); figures are local files.
Everything shown comes from scanned code and manifests, so every HTML template autoescapes
and the Markdown escapes through the `md` filter (see escape.py).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

from jinja2 import Environment, PackageLoader

from .. import __version__, store
from . import browser, escape, explanations, metrics, plots
from .study import LABELS, STUDY

CSV_FIELDS = ["transactions", "statements", "one_shot", "nonstrict", "strict", "incomplete", "one_shot_share",
              "nonstrict_share", "strict_share", "interactive_share", "rw_full_share", "rw_partial_share",
              "rw_none_share", "cda_mismatch_statement_share", "cda_mismatch_transaction_share"]


def _environment(apps: dict[str, dict]) -> Environment:
    env = Environment(loader=PackageLoader("analyzer.report", "templates"), autoescape=escape.autoescape,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(pct=escape.pct, frac=escape.fraction, slug=escape.slug, md=escape.markdown,
                       breakable=escape.breakable, script_json=escape.script_json, where=escape.where)
    env.globals["web_url"] = escape.web_url
    env.globals["source"] = lambda app, file, line: escape.source_url(apps.get(app), file, line)
    return env


def collect(db: sqlite3.Connection) -> dict:
    data = {"modes": {}, "version": __version__, "autocommit_measured": metrics.has_autocommit(db),
            "completeness": metrics.has_completeness(db)}
    for mode in metrics.modes(db):
        per_app = metrics.apps(db, mode)
        data["modes"][mode] = {
            "apps": per_app,
            "survey": metrics.survey(per_app, data["autocommit_measured"]),
            "breakdowns": metrics.breakdowns(db, mode),
            "transactions": metrics.transactions(db, mode),
        }
    return data


def _facets(data: dict) -> dict:
    """The values each filter of the transaction browser offers (sorted, from every mode)."""
    rows = [t for block in data["modes"].values() for t in block["transactions"]]
    return {
        "apps": sorted({t["app"] for t in rows}),
        "reasons": sorted({r["category"] for t in rows for r in t["reasons"]}),
        "boundaries": sorted({t["boundary"] for t in rows}),
    }


def write(db_path: Path, out: Path) -> list[Path]:
    db = store.open_reader(db_path)
    try:
        data = collect(db)
        primary = "pk" if "pk" in data["modes"] else next(iter(data["modes"]))
        differences = explanations.differences(db, data, primary)
    finally:
        db.close()
    out.mkdir(parents=True, exist_ok=True)
    figures = plots.draw_all(data["modes"], out / "figures")
    apps = {a["app"]: a for a in data["modes"][primary]["apps"]}
    slugs = escape.unique_slugs(sorted(apps))
    env = _environment(apps)
    env.filters["page"] = lambda name: slugs[name]
    context = {"data": data, "figures": figures, "labels": LABELS, "study": STUDY, "primary": primary,
               "scopes": metrics.SCOPES, "scope_labels": metrics.SCOPE_LABELS, "facets": _facets(data),
               "differences": differences}
    written: list[Path] = []

    def emit(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)

    emit(out / "browser.js", env.get_template("browser.js.j2").render())
    emit(out / "index.html", env.get_template("index.html.j2").render(**context, prefix=""))
    every = {m: b["transactions"] for m, b in data["modes"].items()}
    emit(out / "transactions.html", env.get_template("transactions.html.j2").render(
        **context, only_app=None, prefix="", browser=browser.payload(every, apps, slugs, None, with_code=False)))
    by_app: dict[str, dict[str, list]] = {name: {m: [] for m in every} for name in apps}
    for mode, rows in every.items():
        for t in rows:
            by_app[t["app"]][mode].append(t)
    for name, app in apps.items():
        emit(out / "apps" / f"{slugs[name]}.html", env.get_template("app.html.j2").render(
            **context, app=app, only_app=name, prefix="../",
            browser=browser.payload(by_app[name], apps, slugs, name, with_code=True),
            per_mode={m: next(a for a in b["apps"] if a["app"] == name) for m, b in data["modes"].items()}))
    emit(out / "summary.md", env.get_template("summary.md.j2").render(**context))
    emit(out / "metrics.json", json.dumps(
        {"autocommit_measured": data["autocommit_measured"],
         **{m: {"survey": b["survey"], "apps": b["apps"], "breakdowns": b["breakdowns"]}
            for m, b in data["modes"].items()}}, indent=2, sort_keys=True) + "\n")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["cda_mode", "scope", "app", "frontend", "files", "lines", "status",
                                                "diagnostics", *CSV_FIELDS], lineterminator="\n")
    writer.writeheader()
    for mode, block in data["modes"].items():
        for app in block["apps"]:
            for scope in metrics.SCOPES:
                writer.writerow({"cda_mode": mode, "scope": scope, "app": app["app"], "frontend": app["frontend"],
                                 "files": app["files"], "lines": app["lines"], "status": app["status"],
                                 "diagnostics": len(app["diagnostics"]),
                                 **{k: app["scopes"][scope][k] for k in CSV_FIELDS}})
    emit(out / "metrics.csv", buffer.getvalue())
    return written
