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

# One transaction: [key, app, file, line, function, boundary, wrapper, complete, statement count,
#   reasons [[category, callee, file, line]], statements [[line, entity, kind, api, file]],
#   incomplete [where], suggestion count, per mode (in `modes` order; null when absent, 0 when the
#   same as the first mode's) [verdict, rw, mismatch, [[inferability, [flags]] per statement],
#   [read set], [write set]], excerpt, suggestions [[kind, pattern, explanation, code]]]
#   (the last two only with code).
# Strings are indexes into `strings` (-1: none); a statement's file is left out when it is the
# transaction's; key is -1 when it is "file:line" (the page derives each row's id from application
# and key); verdict and rw index VERDICTS and RW; complete is 1, 0 or -1 (not recorded).
FIELDS = ["key", "app", "file", "line", "function", "boundary", "wrapper", "complete", "statements", "reasons",
          "steps", "incomplete", "suggestion_count", "modes", "excerpt", "suggestions"]


class Strings:
    """Each distinct string once. While rows are built a string field holds the string itself (None: -1);
    `encode` then replaces each by its index in the table, the most frequent strings first so that the
    references repeated most (kinds, APIs, entities, verdict reasons) are the shortest numbers."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def __call__(self, value) -> str | int:
        if value is None:
            return -1
        text = str(value)
        self.counts[text] = self.counts.get(text, 0) + 1
        return text

    def encode(self, rows: list) -> tuple[list[str], list]:
        # Ties keep the order first met; rows come sorted, so the table is the same for the same store.
        order = sorted(self.counts, key=lambda text: -self.counts[text])
        index = {text: i for i, text in enumerate(order)}

        def walk(value):
            if isinstance(value, str):
                return index[value]
            if isinstance(value, list):
                return [walk(v) for v in value]
            return value
        return order, walk(rows)


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
            -1 if t["key"] == f"{t['file']}:{t['line']}" else strings(t["key"]), app_index[t["app"]], strings(t["file"]), t["line"], strings(t["function"]),
            strings(t["boundary"]), strings(t["wrapper"] or None),
            -1 if t["complete"] is None else int(t["complete"]), t["statement_count"],
            [[strings(r["category"]), strings(r["callee"] or None), strings(r["file"]), r["line"]]
             for r in t["reasons"]],
            [[s["line"], strings(s["entity"]), strings(s["kind"]), strings(s["api"])]
             + ([] if s["file"] == t["file"] else [strings(s["file"])]) for s in t["statements"]],
            [strings(escape.where(item)) for item in t["incomplete"]],
            len(t["suggestions"]),
            _per_mode(entry["modes"], strings),
        ]
        if with_code:
            row += [strings(t["excerpt"] or None),
                    [[strings(g["kind"]), strings(g["pattern"]), strings(g["explanation"]), strings(g["code"])]
                     for g in t["suggestions"]]]
        out.append(row)
    table, out = strings.encode(out)
    counts = {scope: {m: sum(1 for t in modes[m] if _in_scope(t, scope)) for m in mode_names} for scope in SCOPES}
    explicit = sum(counts["explicit"].values())
    return {
        "fields": FIELDS, "modes": mode_names, "verdicts": VERDICTS, "rw": RW, "strings": table,
        "apps": [[name, pages.get(name, ""), source_base(apps.get(name))] for name in names],
        "only_app": only_app, "code": with_code, "rows": out, "counts": counts,
        # Autocommit statements outnumber explicit transactions many times over and are one-statement,
        # one-shot: listing them first would bury the transactions a reader came for. They are one
        # choice away (scope: autocommit or all) and counted next to it.
        "default_scope": "explicit" if explicit else "all",
        "page_size": PAGE_SIZE,
    }


PAGE_SIZE = 100


def _per_mode(transactions: list[dict | None], strings: Strings) -> list:
    """What each CDA mode decides about one transaction; 0 for a mode that decides as the first one did."""
    out: list = []
    for m in transactions:
        if m is None:
            out.append(None)
            continue
        decided = [VERDICTS.index(m["interactivity"]) if m["interactivity"] in VERDICTS else -1,
                   RW.index(m["rw_inferable"]) if m["rw_inferable"] in RW else -1,
                   int(m["cda_mismatch"]),
                   [[s["inferability"], list(s["flags"])] for s in m["statements"]],
                   list(m["read_set"]), list(m["write_set"])]
        if out and decided == out[0]:
            out.append(0)
        else:
            _count_strings(decided, strings)
            out.append(decided)
    return out


def _count_strings(value, strings: Strings) -> None:
    if isinstance(value, str):
        strings(value)
    elif isinstance(value, list):
        for item in value:
            _count_strings(item, strings)


def _in_scope(t: dict, scope: str) -> bool:
    return scope == "all" or (scope == AUTOCOMMIT) == (t["boundary"] == AUTOCOMMIT)
