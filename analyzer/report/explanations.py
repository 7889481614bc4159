"""What may explain each difference between this survey's headline figures and the study's.

Every candidate explanation is registered once in EXPLANATIONS: what it is about (`doc`), the
headline figures it bears on, the SQL it runs over the store and how its rows become one
sentence of measured evidence. Nothing here is hand-written about a particular survey: the
sentences are computed from the store every time the report is written.

A figure differs from the study's when the gap is larger than TOLERANCE allows; each differing
figure gets a paragraph with the evidence of every explanation that bears on it. The figures
are compared on the study's denominator (all together) when the store has autocommit rows,
else on explicit transactions (and the scope explanation says so).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from .escape import pct
from .metrics import FULLY_INFERABLE_THRESHOLD, SCOPE_LABELS, has_completeness, headline_fractions
from .study import LABELS, STUDY, STUDY_CORPUS


def tolerance(study_value: float) -> float:
    """How far a share may be from the study's before it counts as different: a quarter of the
    distance to the nearer end of the scale (0% or 100%), and never less than half a point, so
    9.6% tolerates 2.4 points, 90% tolerates 2.5 points and 0.5% tolerates 0.5 points."""
    return max(0.005, 0.25 * min(study_value, 1 - study_value))


def differs(ours: float | None, study_value: float) -> bool:
    return ours is not None and abs(ours - study_value) > tolerance(study_value)


# Transactions of the compared scope: `:scope` is explicit, autocommit or all.
IN_SCOPE = "(:scope = 'all' OR (:scope = 'autocommit') = (t.boundary = 'autocommit'))"


@dataclass(frozen=True)
class Context:
    """What an explanation sees: the store, the CDA mode and scope compared, and the collected report data."""
    db: sqlite3.Connection
    mode: str
    scope: str
    data: dict  # render.collect(): {"modes": {mode: {"apps", "survey", ...}}, "autocommit_measured", ...}

    @property
    def survey(self) -> dict:
        return self.data["modes"][self.mode]["survey"]

    def figure(self, key: str, scope: str | None = None, mode: str | None = None) -> float | None:
        return self.data["modes"][mode or self.mode]["survey"]["scopes"][scope or self.scope]["figures"][key]


@dataclass(frozen=True)
class Explanation:
    key: str
    title: str
    doc: str
    figures: tuple[str, ...]  # the headline figures (study.py keys) it may explain
    query: str                # over the store, with parameters :mode and :scope
    says: Callable[[list[tuple], str, Context], str | None]  # (rows, figure, context) -> evidence, or None
    # Whether the store records what the query reads (older stores lack some columns), and what to
    # say instead when it does not.
    available: Callable[[sqlite3.Connection], bool] = lambda _db: True
    unavailable: str = ""

    def evidence(self, figure: str, context: Context) -> str | None:
        if figure not in self.figures:
            return None
        if not self.available(context.db):
            return self.unavailable or None
        rows = context.db.execute(self.query, {"mode": context.mode, "scope": context.scope}).fetchall()
        return self.says(rows, figure, context)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _frac(part: int, whole: int) -> str:
    return f"{pct(part / whole if whole else None)} ({part}/{whole})"


# ---------------------------------------------------------------- scope

def _scope(rows: list[tuple], figure: str, c: Context) -> str:
    counts = {scope: (n, interactive) for scope, n, interactive in rows}
    explicit, autocommit = counts.get("explicit", (0, 0))[0], counts.get("autocommit", (0, 0))[0]
    study = STUDY_CORPUS
    if not c.data["autocommit_measured"]:
        return (f"This store has no autocommit rows, so the figure is over {_n(explicit, 'explicit transaction')}"
                " only. The study counted every ORM call site outside an explicit transaction as a transaction of its"
                f" own (about {study['transactions']:,} transactions in {study['applications']} applications, about"
                f" {study['interactive']:,} of them interactive): single-statement, one-shot transactions that this"
                " figure leaves out. Shares of transactions are therefore higher here than on the study's"
                " denominator, and applications without any explicit transaction are not counted.")
    values = "; ".join(f"{SCOPE_LABELS[s]} {pct(c.figure(figure, s))}" for s in ("explicit", "autocommit", "all"))
    return (f"Autocommit statements are {_frac(autocommit, explicit + autocommit)} of all transactions"
            f" ({_n(explicit, 'explicit transaction')}, {_n(autocommit, 'autocommit statement')}; the study: about"
            f" {study['transactions']:,} transactions in {study['applications']} applications). The figure by"
            f" denominator: {values}. How many call sites a survey finds outside explicit transactions moves"
            " every share of transactions: each one is a one-shot transaction in the denominator.")


# ---------------------------------------------------------------- external calls

def _effects(rows: list[tuple], figure: str, c: Context) -> str | None:
    """rows: per application (ok, with transactions in scope): name, transactions, interactive, strict,
    strict with at most one statement."""
    total = sum(r[1] for r in rows)
    interactive = sum(r[2] for r in rows)
    strict = sum(r[3] for r in rows)
    lone = sum(r[4] for r in rows)
    if not interactive:
        return None
    text = (f"Every strictly interactive transaction is interactive because of a call outside the database (HTTP,"
            f" email, queue, cache, storage, ...): {_frac(strict, interactive)} of the interactive transactions."
            f" Of these, {lone} have at most one statement, so the external call is their only reason to be"
            " interactive. If the study's annotators did not count such calls, its figure"
            " compares with this survey's ")
    if figure == "apps_without_interactive":
        apps = len(rows)
        without = sum(1 for r in rows if not r[2])
        only_lone = sum(1 for r in rows if r[2] and r[2] == r[4])
        only_strict = sum(1 for r in rows if r[2] and r[2] == r[3])
        if only_strict == 0:
            return text + (f"without them: no application has only such transactions, so the figure would stay"
                           f" {_frac(without, apps)}.")
        return text + (f"without them: applications with no interactive transaction would be between"
                       f" {_frac(without + only_lone, apps)} and {_frac(without + only_strict, apps)} instead of"
                       f" {_frac(without, apps)}.")
    if figure == "interactive_share_in_other_apps":
        def pooled(left_out: int) -> str:
            """The pooled interactive share once column `left_out` (3: strict, 4: single-statement strict) is not
            counted as interactive, over the applications that still have an interactive transaction."""
            other = [(r[1], r[2] - r[left_out]) for r in rows if r[2] - r[left_out]]
            return _frac(sum(i for _, i in other), sum(n for n, _ in other))
        return text + (f"without them: the interactive share in applications that have any would be between"
                       f" {pooled(3)} (no strictly interactive transaction counted) and {pooled(4)} (only the"
                       " single-statement ones left out).")
    if figure == "strict_share_of_all":
        return text + (f"without the single-statement ones: {_frac(strict - lone, total)} of all transactions"
                       " strictly interactive.")
    return None


# ---------------------------------------------------------------- incomplete verdicts

def _incomplete(rows: list[tuple], figure: str, c: Context) -> str | None:
    """rows: per application: name, transactions, interactive, incomplete, incomplete one-shot, rw full,
    incomplete rw full, strict, incomplete and not strict."""
    total = sum(r[1] for r in rows)
    incomplete = sum(r[3] for r in rows)
    if not incomplete:
        return f"Every one of the {_n(total, 'transaction')} was analysed completely: no verdict is a lower bound."
    text = (f"{_frac(incomplete, total)} of the transactions are incomplete (the analysis met a call it could not"
            " follow); their verdicts are lower bounds: they can only become more interactive and less inferable.")
    if figure == "apps_without_interactive":
        without = [r for r in rows if not r[2]]
        if not without:
            return text + " Every application has an interactive transaction already: incomplete verdicts cannot" \
                " lower this figure."
        blind = sum(1 for r in without if r[3])
        return text + (f" {blind} of the {_n(len(without), 'application')} with no interactive transaction have"
                       " incomplete ones, so the figure is an upper bound: at worst"
                       f" {_frac(len(without) - blind, len(rows))}.")
    if figure == "interactive_share_in_other_apps":
        other = [r for r in rows if r[2]]
        return text + (f" If every incomplete one-shot transaction in those applications were interactive, the share"
                       f" would be {_frac(sum(r[2] + r[4] for r in other), sum(r[1] for r in other))}.")
    if figure == "strict_share_of_all":
        strict, could = sum(r[7] for r in rows), sum(r[8] for r in rows)
        return text + (f" If every incomplete transaction not already strictly interactive made an external call the"
                       f" analysis missed, the share would be {_frac(strict + could, total)}.")
    if figure == "apps_with_58pct_fully_inferable":
        sure = sum(1 for r in rows if r[5] - r[6] >= FULLY_INFERABLE_THRESHOLD * r[1])
        above = sum(1 for r in rows if r[5] >= FULLY_INFERABLE_THRESHOLD * r[1])
        return text + (f" Counting only complete fully inferable transactions, {_frac(sure, len(rows))} of the"
                       f" applications reach 58%, against {_frac(above, len(rows))} as measured.")
    return text


# ---------------------------------------------------------------- CDA mode

def _cda_mode(rows: list[tuple], figure: str, c: Context) -> str | None:
    """rows: per CDA mode: statements, statements with a CDA mismatch, transactions, fully inferable."""
    modes = [r[0] for r in rows]
    if len(modes) < 2:
        return f"Only CDA mode {c.mode} is in this store; the study chose a CDA per entity from the code (mode auto)."
    values = "; ".join(f"CDA {m}: {pct(c.figure(figure, mode=m))}" for m in modes)
    counts = "; ".join(f"{m}: {_frac(mismatch, statements)} of statements" for m, statements, mismatch, *_ in rows)
    return (f"The study chose each entity's conflict detection attribute from the code (txscan's mode auto);"
            f" mode pk takes the primary key. The figure by mode: {values}. Statements with a CDA mismatch, {counts}.")


# ---------------------------------------------------------------- corpus

def _corpus(rows: list[tuple], figure: str, c: Context) -> str:
    """rows: per front end: applications, scanned (ok), with transactions in scope."""
    parts = []
    for frontend, apps, ok, with_transactions in rows:
        scanned = [a["scopes"][c.scope] for a in c.data["modes"][c.mode]["apps"]
                   if a["frontend"] == frontend and a["status"] == "ok" and a["scopes"][c.scope]["transactions"]]
        part, whole = headline_fractions(scanned)[figure]
        parts.append(f"{frontend} {_frac(part, whole)} over {_n(with_transactions, 'application')}"
                     f" ({apps} in the manifest, {ok} scanned)")
    study = STUDY_CORPUS
    return (f"This survey has {_n(c.survey['scopes'][c.scope]['applications'], 'application')} with transactions"
            f" against the study's {study['applications']}, chosen from popular public repositories as the study"
            " chose its own but not the same list; the study does not give its figures per ORM. The figure by front"
            f" end: {'; '.join(parts)}. A different mix of Django and TypeORM applications moves the pooled figure"
            " between these values.")


# ---------------------------------------------------------------- applications without transactions

def _empty_apps(rows: list[tuple], figure: str, c: Context) -> str | None:
    """rows: per application that is not counted: name, status (ok with no transaction in scope, or failed)."""
    empty = sorted(name for name, status in rows if status == "ok")
    failed = sorted(name for name, status in rows if status != "ok")
    if not empty and not failed:
        return None
    counted = c.survey["scopes"][c.scope]["applications"]
    text = (f"{_n(len(empty), 'application')} scanned without any transaction in this scope and"
            f" {len(failed)} failed; both are left out of the per-application figures, which are over the"
            f" {counted} others.")
    if empty:
        shown = ", ".join(empty[:8]) + (f" and {len(empty) - 8} more" if len(empty) > 8 else "")
        text += f" Without transactions: {shown}."
    if figure == "apps_without_interactive" and empty:
        fractions = c.survey["scopes"][c.scope]["fractions"][figure]
        text += (" Counted as applications without interactive transactions, the figure would be"
                 f" {_frac(fractions[0] + len(empty), fractions[1] + len(empty))}.")
    return text


PER_APP = (
    "SELECT a.name, count(*), sum(t.interactivity != 'one-shot'), sum(t.interactivity = 'interactive-strict'),"
    " sum(t.interactivity = 'interactive-strict' AND t.statements <= 1)"
    " FROM transactions t JOIN apps a ON a.id = t.app_id"
    f" WHERE a.status = 'ok' AND t.cda_mode = :mode AND {IN_SCOPE} GROUP BY a.id ORDER BY a.name")

EXPLANATIONS: list[Explanation] = [
    Explanation(
        "scope", "Which transactions are counted",
        "The study's denominator is every ORM call site (autocommit statements together with explicit"
        " transactions); the figure is compared on that denominator when the store has autocommit rows.",
        tuple(STUDY),
        "SELECT CASE WHEN t.boundary = 'autocommit' THEN 'autocommit' ELSE 'explicit' END, count(*),"
        " sum(t.interactivity != 'one-shot') FROM transactions t JOIN apps a ON a.id = t.app_id"
        " WHERE a.status = 'ok' AND t.cda_mode = :mode GROUP BY 1 ORDER BY 1",
        _scope),
    Explanation(
        "external-calls", "Interactivity that comes only from external calls",
        "An external call (HTTP, email, queue, cache, storage) inside a transaction makes it strictly interactive"
        " whatever its statements do; annotators may not have counted such calls, or not all of them. Measured:"
        " strictly interactive transactions, and those with at most one statement, whose only reason is the call.",
        ("apps_without_interactive", "interactive_share_in_other_apps", "strict_share_of_all"),
        PER_APP, _effects),
    Explanation(
        "incomplete", "Verdicts that are lower bounds",
        "A transaction whose analysis met a call it could not follow is `complete: false`; its verdict is a lower"
        " bound (docs/VERDICTS.md). Measured: their share, and the figure if each were as bad as it can be.",
        tuple(STUDY),
        "SELECT a.name, count(*), sum(t.interactivity != 'one-shot'), sum(NOT t.complete),"
        " sum(NOT t.complete AND t.interactivity = 'one-shot'), sum(t.rw_inferable = 'full'),"
        " sum(NOT t.complete AND t.rw_inferable = 'full'), sum(t.interactivity = 'interactive-strict'),"
        " sum(NOT t.complete AND t.interactivity != 'interactive-strict')"
        " FROM transactions t JOIN apps a ON a.id = t.app_id"
        f" WHERE a.status = 'ok' AND t.cda_mode = :mode AND {IN_SCOPE} GROUP BY a.id ORDER BY a.name",
        _incomplete, has_completeness,
        "This store does not record completeness (an older schema): how many verdicts are lower bounds is not"
        " known."),
    Explanation(
        "cda-mode", "The conflict detection attribute",
        "Read/write-set figures depend on each entity's conflict detection attribute: the primary key (mode pk)"
        " or the study's choice from the code (mode auto). Measured: the figure and the CDA mismatches per mode.",
        ("apps_with_58pct_fully_inferable", "cda_mismatch_share_of_transactions"),
        "SELECT t.cda_mode, count(*), sum(s.inferability = 'cda-mismatch')"
        " FROM statements s JOIN transactions t ON t.id = s.transaction_id JOIN apps a ON a.id = t.app_id"
        f" WHERE a.status = 'ok' AND {IN_SCOPE} GROUP BY t.cda_mode ORDER BY t.cda_mode != 'pk', t.cda_mode",
        _cda_mode),
    Explanation(
        "corpus", "Which applications are surveyed",
        "This survey's applications are not the study's 111, and the mix of Django and TypeORM applications"
        " differs. Measured: the figure over each front end's applications alone.",
        tuple(STUDY),
        "SELECT a.frontend, count(*), sum(a.status = 'ok'), sum(a.status = 'ok' AND EXISTS (SELECT 1 FROM"
        f" transactions t WHERE t.app_id = a.id AND t.cda_mode = :mode AND {IN_SCOPE}))"
        " FROM apps a GROUP BY a.frontend ORDER BY a.frontend",
        _corpus),
    Explanation(
        "empty-applications", "Applications left out of the per-application figures",
        "Per-application figures count only applications with at least one transaction in the scope; those"
        " scanned without any, and those that failed, are left out. Measured: which, and the figure with them.",
        ("apps_without_interactive", "apps_with_58pct_fully_inferable"),
        "SELECT a.name, a.status FROM apps a WHERE a.status != 'ok' OR NOT EXISTS (SELECT 1 FROM transactions t"
        f" WHERE t.app_id = a.id AND t.cda_mode = :mode AND {IN_SCOPE}) ORDER BY a.name",
        _empty_apps),
]


def compared_scope(data: dict) -> str:
    return "all" if data["autocommit_measured"] else "explicit"


def differences(db: sqlite3.Connection, data: dict, mode: str) -> dict:
    """{"scope", "mode", "differing": [{figure, label, ours, study, gap, evidence: [{key, title, text}]}],
    "agreeing": [{figure, label, ours, study}]} for the report's "What explains the differences"."""
    context = Context(db, mode, compared_scope(data), data)
    differing, agreeing = [], []
    for figure, label in LABELS.items():
        ours = context.figure(figure)
        entry = {"figure": figure, "label": label, "ours": ours, "study": STUDY[figure]}
        if ours is None:
            continue  # no application has transactions in the scope: nothing to compare
        if not differs(ours, STUDY[figure]):
            agreeing.append(entry)
            continue
        evidence = []
        for explanation in EXPLANATIONS:
            text = explanation.evidence(figure, context)
            if text:
                evidence.append({"key": explanation.key, "title": explanation.title, "text": text})
        differing.append({**entry, "gap": ours - STUDY[figure], "evidence": evidence})
    return {"scope": context.scope, "mode": mode, "differing": differing, "agreeing": agreeing}
