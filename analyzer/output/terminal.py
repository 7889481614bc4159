"""The readable summary `txscan scan` prints by default (rich tables)."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table

from ..core.classify import AUTOCOMMIT
from .json_contract import summary

_VERDICT_STYLE = {"one-shot": "green", "interactive-nonstrict": "yellow", "interactive-strict": "red"}


def render(analysis: dict, root: str, lines: int, console: Console, db_path: str | None = None) -> None:
    facts = summary(analysis)
    explicit = [t for t in analysis["transactions"] if t["boundary"] != AUTOCOMMIT]
    console.print(f"[bold]txscan[/bold] {root}: {analysis['frontend']}, {lines} lines, "
                  f"{len(analysis['entities'])} entities, {len(explicit)} transactions "
                  f"(CDA mode {analysis['cda_mode']})")
    table = Table(show_lines=False, header_style="bold")
    for column in ("location", "function", "boundary", "verdict", "rw set", "stmts", "complete", "reasons"):
        table.add_column(column, overflow="fold")
    for t in explicit:
        reasons = sorted({r["category"] for r in t["reasons"]})
        style = _VERDICT_STYLE.get(t["interactivity"], "")
        table.add_row(f"{t['file']}:{t['line']}", t["function"], t["boundary"],
                      f"[{style}]{t['interactivity']}[/{style}]", t["rw_inferable"], str(len(t["statements"])),
                      _completeness(t), ", ".join(reasons))
    if explicit:
        console.print(table)
    if facts["autocommit"]:
        # One row per ORM call site would drown the table: autocommit statements are summarised.
        autocommit = [t for t in analysis["transactions"] if t["boundary"] == AUTOCOMMIT]
        rw = ", ".join(f"{k} {v}" for k, v in sorted(Counter(t["rw_inferable"] for t in autocommit).items()))
        console.print(f"{facts['autocommit']} autocommit statements (ORM call sites outside explicit transactions, "
                      f"one-shot; read/write sets: {rw}); listed in --format json and the store")
    counts = ", ".join(f"{k} {v}" for k, v in facts["interactivity"].items()) or "none"
    rw = ", ".join(f"{k} {v}" for k, v in facts["rw_inferable"].items()) or "none"
    inf = ", ".join(f"{k} {v}" for k, v in facts["inferability"].items()) or "none"
    console.print(f"verdicts: {counts}")
    if facts["incomplete"]:
        console.print(f"incomplete: {facts['incomplete']} transactions (their verdicts are lower bounds)")
    console.print(f"read/write sets: {rw}")
    console.print(f"statements: {facts['statements']} ({inf})")
    if analysis["diagnostics"]:
        console.print(f"diagnostics: {len(analysis['diagnostics'])}")
        for d in analysis["diagnostics"][:20]:
            console.print(f"  {d['file']}:{d['line']}: {d['code']}: {d['message']}", markup=False, highlight=False)
        if len(analysis["diagnostics"]) > 20:
            console.print(f"  ... {len(analysis['diagnostics']) - 20} more (see --format json or the store)")
    if db_path:
        console.print(f"store: {db_path}")


def _completeness(transaction: dict) -> str:
    """`yes`, or `no (n)` with the number of places the walk could not follow."""
    if transaction.get("complete", True):
        return "yes"
    return f"[magenta]no ({len(transaction.get('incomplete', []))})[/magenta]"
