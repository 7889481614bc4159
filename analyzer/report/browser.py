"""The data of the transaction browser: every transaction of a page as compact JSON, which the page's
own script filters, sorts and shows 100 rows at a time (templates/_transactions.html.j2).

A survey holds tens of thousands of transactions in each CDA mode; one HTML row each (with its
hidden details) made pages of tens of megabytes that a browser lays out slowly. Here each
transaction is one array, with what both CDA modes share (location, statements, reasons) stored
once and only what a mode changes (verdict, read/write sets, statement inferability) per mode,
and every repeated string (file, function, entity, API, set element) stored once in `strings`
and referred to by its index. The layout is documented in FIELDS and read by the page's script.
"""

from __future__ import annotations

from urllib.parse import quote

from . import escape

VERDICTS = ["one-shot", "interactive-nonstrict", "interactive-strict"]
RW = ["full", "partial", "none"]
SCOPES = ["explicit", "autocommit", "all"]
AUTOCOMMIT = "autocommit"

# One transaction: [uid, app, file, line, function, boundary, wrapper, complete, statement count,
#   reasons [[category, callee, file, line]], statements [[file, line, entity, kind, api]],
#   incomplete [where], suggestion count, per mode (in `modes` order; null when absent)
#   [verdict, rw, mismatch, [[inferability, [flags]] per statement], [read set], [write set]],
#   excerpt, suggestions [[kind, pattern, explanation, code]]]   (the last two only with code)
# Strings are indexes into `strings` (-1: none); verdict and rw index VERDICTS and RW;
# complete is 1, 0 or -1 (not recorded).
FIELDS = ["uid", "app", "file", "line", "function", "boundary", "wrapper", "complete", "statements", "reasons",
          "steps", "incomplete", "suggestion_count", "modes", "excerpt", "suggestions"]


class Strings:
    """Each distinct string once, in the order first met (deterministic: rows come sorted)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, value) -> int:
        if value is None:
            return -1
        text = str(value)
        if text not in self.index:
            self.index[text] = len(self.index)
        return self.index[text]

    @property
    def table(self) -> list[str]:
        return list(self.index)


def source_base(app: dict | None) -> list[str] | None:
    """[prefix, line anchor] such that prefix + quoted path + anchor + line is escape.source_url's link."""
    probe = escape.source_url(app, "\x00", 1)
    if probe is None:
        return None
    prefix, rest = probe.split(quote("\x00", safe="/"), 1)
    return [prefix, rest[:-1]]


def payload(modes: dict[str, list[dict]], apps: dict[str, dict], pages: dict[str, str], only_app: str | None,
            with_code: bool) -> dict:
    """The JSON of one page: `modes` is {mode: transactions (metrics.transactions)}, `apps` the per-application
    rows (url, commit, subdir), `pages` each application's page name."""
    strings = Strings()
    names = sorted({t["app"] for rows in modes.values() for t in rows})
    app_index = {name: i for i, name in enumerate(names)}
    merged: dict[tuple[str, str], dict] = {}
    mode_names = list(modes)
    for position, (mode, rows) in enumerate(modes.items()):
        for t in rows:
            entry = merged.setdefault((t["app"], t["key"]), {"first": t, "modes": [None] * len(mode_names)})
            entry["modes"][position] = t
    ordered = sorted(merged.values(), key=lambda e: (e["first"]["app"], e["first"]["file"], e["first"]["line"],
                                                      e["first"]["key"]))
    out = []
    for entry in ordered:
        t = entry["first"]
        row = [
            t["uid"], app_index[t["app"]], strings(t["file"]), t["line"], strings(t["function"]),
            strings(t["boundary"]), strings(t["wrapper"] or None),
            -1 if t["complete"] is None else int(t["complete"]), t["statement_count"],
            [[strings(r["category"]), strings(r["callee"] or None), strings(r["file"]), r["line"]]
             for r in t["reasons"]],
            [[strings(s["file"]), s["line"], strings(s["entity"]), strings(s["kind"]), strings(s["api"])]
             for s in t["statements"]],
            [strings(escape.where(item)) for item in t["incomplete"]],
            len(t["suggestions"]),
            [None if m is None else [
                VERDICTS.index(m["interactivity"]) if m["interactivity"] in VERDICTS else -1,
                RW.index(m["rw_inferable"]) if m["rw_inferable"] in RW else -1,
                int(m["cda_mismatch"]),
                [[strings(s["inferability"]), [strings(f) for f in s["flags"]]] for s in m["statements"]],
                [strings(k) for k in m["read_set"]], [strings(k) for k in m["write_set"]],
            ] for m in entry["modes"]],
        ]
        if with_code:
            row += [strings(t["excerpt"] or None),
                    [[strings(g["kind"]), strings(g["pattern"]), strings(g["explanation"]), strings(g["code"])]
                     for g in t["suggestions"]]]
        out.append(row)
    counts = {scope: {m: sum(1 for t in modes[m] if _in_scope(t, scope)) for m in mode_names} for scope in SCOPES}
    explicit = sum(counts["explicit"].values())
    return {
        "fields": FIELDS, "modes": mode_names, "verdicts": VERDICTS, "rw": RW, "strings": strings.table,
        "apps": [[name, pages.get(name, ""), source_base(apps.get(name))] for name in names],
        "only_app": only_app, "code": with_code, "rows": out, "counts": counts,
        # Autocommit statements outnumber explicit transactions many times over and are one-statement,
        # one-shot: listing them first would bury the transactions a reader came for. They are one
        # choice away (scope: autocommit or all) and counted next to it.
        "default_scope": "explicit" if explicit else "all",
        "page_size": PAGE_SIZE,
    }


PAGE_SIZE = 100


def _in_scope(t: dict, scope: str) -> bool:
    return scope == "all" or (scope == AUTOCOMMIT) == (t["boundary"] == AUTOCOMMIT)
