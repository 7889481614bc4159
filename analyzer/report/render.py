"""Write a report directory from a store: index.html, one page per application, the browsable
transaction list, summary.md, metrics.csv/json and the figures (figures/*.svg|png).

Everything is offline: CSS and the small filter script are inline, figures are local files.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from .. import __version__, store
from . import metrics, plots
from .study import LABELS, STUDY

CSV_FIELDS = ["app", "frontend", "files", "lines", "transactions", "statements", "one_shot", "nonstrict", "strict",
              "one_shot_share", "nonstrict_share", "strict_share", "interactive_share", "rw_full_share",
              "rw_partial_share", "rw_none_share", "cda_mismatch_statement_share", "cda_mismatch_transaction_share",
              "diagnostics", "status"]


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name)


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("analyzer.report", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["pct"] = _pct
    env.filters["slug"] = _slug
    return env


def collect(db: sqlite3.Connection) -> dict:
    data = {"modes": {}, "version": __version__}
    for mode in metrics.modes(db):
        per_app = metrics.apps(db, mode)
        data["modes"][mode] = {
            "apps": per_app,
            "survey": metrics.survey(per_app),
            "breakdowns": metrics.breakdowns(db, mode),
            "transactions": metrics.transactions(db, mode),
        }
    return data


def write(db_path: Path, out: Path) -> list[Path]:
    db = store.open_reader(db_path)
    data = collect(db)
    db.close()
    out.mkdir(parents=True, exist_ok=True)
    figures_dir = out / "figures"
    env = _environment()
    written: list[Path] = []
    figures: dict[str, list[str]] = {}
    for mode, block in data["modes"].items():
        figures[mode] = [
            plots.interactive_share(block["apps"], figures_dir, mode),
            plots.fully_inferable_cdf(block["apps"], figures_dir, mode),
            plots.mismatches(block["breakdowns"], figures_dir, mode),
            plots.strict_reasons(block["breakdowns"], figures_dir, mode),
            plots.rewrites(block["breakdowns"], figures_dir, mode),
        ]
    primary = "pk" if "pk" in data["modes"] else next(iter(data["modes"]))
    context = {"data": data, "figures": figures, "labels": LABELS, "study": STUDY, "primary": primary}

    def emit(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)

    emit(out / "index.html", env.get_template("index.html.j2").render(**context))
    emit(out / "transactions.html", env.get_template("transactions.html.j2").render(
        **context, rows=data["modes"][primary]["transactions"], title="All transactions", prefix=""))
    for app in data["modes"][primary]["apps"]:
        rows = [t for t in data["modes"][primary]["transactions"] if t["app"] == app["app"]]
        emit(out / "apps" / f"{_slug(app['app'])}.html", env.get_template("app.html.j2").render(
            **context, app=app, rows=rows, prefix="../",
            other={m: next(a for a in b["apps"] if a["app"] == app["app"]) for m, b in data["modes"].items()}))
    emit(out / "summary.md", env.get_template("summary.md.j2").render(**context))
    emit(out / "metrics.json", json.dumps({m: {"survey": b["survey"], "apps": b["apps"], "breakdowns": b["breakdowns"]}
                                           for m, b in data["modes"].items()}, indent=2, sort_keys=True) + "\n")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["cda_mode"] + CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for mode, block in data["modes"].items():
        for app in block["apps"]:
            writer.writerow({"cda_mode": mode, **{k: app.get(k) for k in CSV_FIELDS}})
    emit(out / "metrics.csv", buffer.getvalue())
    return written
