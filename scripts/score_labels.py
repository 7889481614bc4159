#!/usr/bin/env python3
"""Score txscan scans against hand-labelled transactions.

    .venv/bin/python scripts/score_labels.py corpus/labels/real.json --checkouts /work/real
    .venv/bin/python scripts/score_labels.py corpus/labels/real.json --checkouts /work/real \\
        --txscan /work/wt/base/.venv/bin/txscan --save-scans /tmp/scans --json
    .venv/bin/python scripts/score_labels.py LABELS --scan-json /tmp/scans

For every application of the label file, the scan is either run (`txscan scan CHECKOUT/SUBDIR
--format json --no-db --no-cache`: cold, nothing written into the checkout; with the txscan of
the running interpreter's environment unless --txscan names another) or read from --scan-json
DIR/<app>.json. Labelled transactions are matched to reported ones by file and boundary line,
then compared. Printed per ORM and overall:

- detection: labelled transactions that the scan reports at all;
- interactivity and rw set: verdicts equal to the label, over detected transactions;
- statement recall: labelled statements reported in the matched transaction at the same file
  and line, over all labelled statements (those of undetected transactions count as missed);
- CDA mismatch: agreement of the `cda-mismatch` flag on the statements matched;
- effect recall: labelled external effects (strict reasons) reported at the same place;
and a list of every transaction that disagrees, with what differs.

Matching rules (also in corpus/labels/README.md):
- a boundary matches a reported transaction of the same file whose `line` is equal, else the
  nearest within --boundary-tolerance lines (default 2: stacked decorators such as
  `@classmethod` over `@atomic`, or `@Transaction()` over `@Mutation()`, may be reported on
  another line of the same stack);
- a labelled statement covers the lines `line`..`line_end` of its call expression (and any
  `also_at` places: a statement reached through a shared helper may be reported at the call
  site or inside the helper); a reported statement of the same file matches when its line lies
  in that span widened by --tolerance lines (default 1: an analyzer may report the `await` /
  `return (` line just before the expression, while a wider window would let one statement
  claim its neighbour's match). Each reported statement is used once, nearest first, and at
  equal distance one of the labelled kind first.
Labels with a `boundary_role` are not transactions of their own: `"wrapper"` (a library-style
method that only starts a transaction for its caller) or `"not-a-transaction"` (a drawn line
that opens no ORM transaction, e.g. a driver transaction on another database). They are left
out of every metric and listed separately, with their role.

Exit status: 0 after scoring, 2 for a bad label file, a missing checkout or scan, or a scan
that fails (one line on stderr naming the file and the reason).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

INTERACTIVITY = ("one-shot", "interactive-nonstrict", "interactive-strict")
RW_SETS = ("full", "partial", "none")
BOUNDARY_ROLES = ("wrapper", "not-a-transaction")   # labels left out of the metrics
AUTOCOMMIT = "autocommit"   # the boundary of statements outside explicit transactions (docs/IR.md)
SCAN_TIMEOUT_SECONDS = 3600


class InputError(Exception):
    """A problem with the inputs: reported as one line, exit status 2."""


# ---------------------------------------------------------------- inputs

def read_json(path: Path, what: str, kind: str):
    """The parsed file; `what` names it for a missing file, `kind` for bad content."""
    try:
        return json.loads(path.read_text("utf-8"))
    except OSError as error:
        raise InputError(f"{path}: cannot read the {what} ({error.strerror or error})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{path}: not {kind} ({error})") from None


def load_labels(path: Path) -> dict:
    doc = read_json(path, "label file", "a JSON label file")
    problem = _label_problem(doc)
    if problem:
        raise InputError(f"{path}: {problem}")
    return doc


def _label_problem(doc) -> str | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("apps"), list) or not isinstance(
            doc.get("transactions"), list):
        return "expected an object with 'apps' and 'transactions' lists"
    names = set()
    for app in doc["apps"]:
        if not isinstance(app, dict) or not {"name", "orm", "subdir"} <= set(app):
            return "every app needs name, orm and subdir"
        names.add(app["name"])
    for index, txn in enumerate(doc["transactions"]):
        where = f"transaction #{index + 1}"
        if not isinstance(txn, dict):
            return f"{where}: not an object"
        missing = {"id", "app", "file", "line", "interactivity", "rw_set", "statements"} - set(txn)
        if missing:
            return f"{where}: missing {', '.join(sorted(missing))}"
        if txn["app"] not in names:
            return f"{txn['id']}: app {txn['app']!r} is not in 'apps'"
        if txn["interactivity"] not in INTERACTIVITY:
            return f"{txn['id']}: interactivity must be one of {', '.join(INTERACTIVITY)}"
        if txn["rw_set"] not in RW_SETS:
            return f"{txn['id']}: rw_set must be one of {', '.join(RW_SETS)}"
        if txn.get("boundary_role", BOUNDARY_ROLES[0]) not in BOUNDARY_ROLES:
            return f"{txn['id']}: boundary_role must be one of {', '.join(BOUNDARY_ROLES)}"
        for statement in txn["statements"]:
            if not isinstance(statement, dict) or not {"file", "line", "cda_mismatch"} <= set(statement):
                return f"{txn['id']}: every statement needs file, line and cda_mismatch"
    return None


def default_txscan() -> str:
    beside = Path(sys.executable).parent / "txscan"
    if beside.exists():
        return str(beside)
    found = shutil.which("txscan")
    if not found:
        raise InputError("txscan: not found beside the interpreter nor on PATH (use --txscan)")
    return found


def run_scan(txscan: str, root: Path) -> dict:
    try:
        completed = subprocess.run([txscan, "scan", str(root), "--format", "json", "--no-db", "--no-cache"],
                                   capture_output=True, text=True, timeout=SCAN_TIMEOUT_SECONDS, check=False)
    except FileNotFoundError:
        raise InputError(f"{txscan}: no such program") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"{root}: scan did not finish in {SCAN_TIMEOUT_SECONDS} s") from None
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["no message"])[-1]
        raise InputError(f"{root}: scan failed with status {completed.returncode}: {last}")
    try:
        return json.loads(completed.stdout)
    except json.JSONDecodeError as error:
        raise InputError(f"{root}: scan output is not JSON ({error})") from None


def read_scan(path: Path) -> dict:
    doc = read_json(path, "scan", "scan JSON")
    if not isinstance(doc, dict) or not isinstance(doc.get("transactions"), list):
        raise InputError(f"{path}: not scan JSON (no 'transactions' list)")
    return doc


def collect_scans(labels: dict, checkouts: Path | None, scan_json: Path | None, txscan: str | None,
                  save_scans: Path | None) -> dict[str, dict]:
    """One scan per labelled application, by application name."""
    wanted = {txn["app"] for txn in labels["transactions"]}
    apps = [app for app in labels["apps"] if app["name"] in wanted]
    scans = {}
    if scan_json is None:
        if checkouts is None:
            raise InputError("give --checkouts DIR (to scan) or --scan-json DIR (scans made before)")
        for app in apps:  # check every checkout before spending time on scans
            root = checkouts / app.get("checkout", app["name"]) / app["subdir"]
            if not root.is_dir():
                raise InputError(f"{root}: checkout of {app['name']} missing")
        program = txscan or default_txscan()
        if shutil.which(program) is None:
            raise InputError(f"{program}: no such program")
    for app in apps:
        if scan_json is not None:
            scans[app["name"]] = read_scan(scan_json / f"{app['name']}.json")
            continue
        root = checkouts / app.get("checkout", app["name"]) / app["subdir"]
        if sys.stderr.isatty():
            print(f"scanning {app['name']} ...", file=sys.stderr, flush=True)
        scans[app["name"]] = run_scan(program, root)
        if save_scans is not None:
            save_scans.mkdir(parents=True, exist_ok=True)
            (save_scans / f"{app['name']}.json").write_text(json.dumps(scans[app["name"]], sort_keys=True))
    return scans


# ---------------------------------------------------------------- matching

def match_boundary(label: dict, reported: list[dict], used: set[int], tolerance: int) -> dict | None:
    candidates = [(abs(t["line"] - label["line"]), index) for index, t in enumerate(reported)
                  if index not in used and t["file"] == label["file"]
                  and abs(t["line"] - label["line"]) <= tolerance]
    if not candidates:
        return None
    _, index = min(candidates)
    used.add(index)
    return reported[index]


def _places(labelled: dict) -> list[tuple[str, int, int]]:
    first = labelled["line"]
    places = [(labelled["file"], first, labelled.get("line_end", first))]
    places += [(p["file"], p["line"], p.get("line_end", p["line"])) for p in labelled.get("also_at", [])]
    return places


def _distance(place: tuple[str, int, int], file: str, line: int, tolerance: int) -> int | None:
    name, start, end = place
    if name != file or not start - tolerance <= line <= end + tolerance:
        return None
    return 0 if start <= line <= end else min(abs(line - start), abs(line - end))


def match_statements(labelled: list[dict], reported: list[dict], tolerance: int) -> list[dict | None]:
    """For each labelled statement, the reported statement it matches (or None)."""
    pairs = []
    for li, statement in enumerate(labelled):
        for ri, candidate in enumerate(reported):
            distances = [d for place in _places(statement)
                         if (d := _distance(place, candidate["file"], candidate["line"], tolerance)) is not None]
            if distances:
                # nearest first; at equal distance a reported statement of the labelled kind
                # (an M2M add() is a read and an insert on one line)
                other_kind = candidate.get("kind") != statement.get("kind")
                pairs.append((min(distances), other_kind, li, ri))
    result: list[dict | None] = [None] * len(labelled)
    taken = set()
    for _, _, li, ri in sorted(pairs):
        if result[li] is None and ri not in taken:
            result[li] = reported[ri]
            taken.add(ri)
    return result


def reported_mismatch(statement: dict) -> bool:
    return "cda-mismatch" in statement.get("flags", []) or statement.get("inferability") == "cda-mismatch"


def match_effects(labelled: list[dict], reasons: list[dict], tolerance: int) -> list[dict | None]:
    effects = [r for r in reasons if r.get("file") is not None and r.get("line") is not None]
    return match_statements(labelled, effects, tolerance)


# ---------------------------------------------------------------- scoring

@dataclass
class Tally:
    labelled: int = 0
    detected: int = 0
    interactivity_agree: int = 0
    rw_agree: int = 0
    statements: int = 0
    statements_found: int = 0
    cda_compared: int = 0
    cda_agree: int = 0
    effects: int = 0
    effects_found: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def metrics(self) -> dict:
        def ratio(part, whole):
            return round(part / whole, 3) if whole else None
        return {
            "transactions": self.labelled,
            "detection": ratio(self.detected, self.labelled),
            "interactivity": ratio(self.interactivity_agree, self.detected),
            "rw_set": ratio(self.rw_agree, self.detected),
            "statement_recall": ratio(self.statements_found, self.statements),
            "cda_mismatch": ratio(self.cda_agree, self.cda_compared),
            "effect_recall": ratio(self.effects_found, self.effects),
            "counts": {name: getattr(self, name) for name in self.__dataclass_fields__},
        }


@dataclass
class Outcome:
    label: dict
    orm: str
    tally: Tally
    reported: dict | None
    missed_statements: list[dict] = field(default_factory=list)
    cda_disagreements: list[tuple[dict, bool]] = field(default_factory=list)
    missed_effects: list[dict] = field(default_factory=list)

    def disagreements(self) -> list[str]:
        label, reported = self.label, self.reported
        if reported is None:
            return ["not detected"]
        found = []
        if reported["interactivity"] != label["interactivity"]:
            found.append(f"interactivity {reported['interactivity']} (label {label['interactivity']})")
        if reported["rw_inferable"] != label["rw_set"]:
            found.append(f"rw set {reported['rw_inferable']} (label {label['rw_set']})")
        if not reported["statements"]:
            found.append("no statement reported")
        for statement in self.missed_statements:
            found.append(f"missed statement {_where(statement)} {statement.get('entity', '?')} "
                         f"{statement.get('kind', '?')}")
        for statement, said in self.cda_disagreements:
            found.append(f"cda-mismatch {'set' if said else 'not set'} at {_where(statement)} "
                         f"(label {'mismatch' if statement['cda_mismatch'] else 'no mismatch'})")
        for effect in self.missed_effects:
            found.append(f"missed effect {effect.get('category', '?')} at {_where(effect)}")
        return found


def _where(item: dict) -> str:
    return f"{item['file']}:{item['line']}"


def score_transaction(label: dict, orm: str, reported: dict | None, tolerance: int) -> Outcome:
    tally = Tally(labelled=1, statements=len(label["statements"]), effects=len(label.get("strict_reasons", [])))
    outcome = Outcome(label, orm, tally, reported)
    if reported is None:
        outcome.missed_statements = list(label["statements"])
        return outcome
    tally.detected = 1
    tally.interactivity_agree = int(reported["interactivity"] == label["interactivity"])
    tally.rw_agree = int(reported["rw_inferable"] == label["rw_set"])
    for statement, hit in zip(label["statements"], match_statements(label["statements"], reported["statements"],
                                                                     tolerance)):
        if hit is None:
            outcome.missed_statements.append(statement)
            continue
        tally.statements_found += 1
        tally.cda_compared += 1
        said = reported_mismatch(hit)
        if said == bool(statement["cda_mismatch"]):
            tally.cda_agree += 1
        else:
            outcome.cda_disagreements.append((statement, said))
    effects = label.get("strict_reasons", [])
    for effect, hit in zip(effects, match_effects(effects, reported.get("reasons", []), tolerance)):
        if hit is None:
            outcome.missed_effects.append(effect)
        else:
            tally.effects_found += 1
    return outcome


def score(labels: dict, scans: dict[str, dict], tolerance: int, boundary_tolerance: int) -> dict:
    orms = {app["name"]: app["orm"] for app in labels["apps"]}
    used: dict[str, set[int]] = {name: set() for name in scans}
    outcomes, wrappers = [], []
    for label in labels["transactions"]:
        # The labels are explicit transactions; autocommit statements (one per ORM call site
        # outside them) are never their match, even when one sits within the line tolerance.
        reported_all = [t for t in scans[label["app"]]["transactions"] if t.get("boundary") != AUTOCOMMIT]
        if label.get("boundary_role") in BOUNDARY_ROLES:
            near = [t for t in reported_all if t["file"] == label["file"]
                    and abs(t["line"] - label["line"]) <= boundary_tolerance]
            wrappers.append({"id": label["id"], "role": label["boundary_role"], "file": label["file"],
                             "line": label["line"], "reported_as_transaction": bool(near)})
            continue
        reported = match_boundary(label, reported_all, used[label["app"]], boundary_tolerance)
        outcomes.append(score_transaction(label, orms[label["app"]], reported, tolerance))
    per_orm: dict[str, Tally] = {}
    overall = Tally()
    for outcome in outcomes:
        per_orm.setdefault(outcome.orm, Tally()).add(outcome.tally)
        overall.add(outcome.tally)
    return {
        "per_orm": {orm: tally.metrics() for orm, tally in sorted(per_orm.items())},
        "overall": overall.metrics(),
        "tolerance": {"statement_lines": tolerance, "boundary_lines": boundary_tolerance},
        "transactions": [_transaction_report(o) for o in outcomes],
        "wrappers": wrappers,
    }


def _transaction_report(outcome: Outcome) -> dict:
    label, reported = outcome.label, outcome.reported
    return {
        "id": label["id"], "app": label["app"], "orm": outcome.orm, "file": label["file"], "line": label["line"],
        "detected": reported is not None,
        "interactivity": {"label": label["interactivity"], "scan": reported and reported["interactivity"]},
        "rw_set": {"label": label["rw_set"], "scan": reported and reported["rw_inferable"]},
        "statements": {"labelled": outcome.tally.statements, "found": outcome.tally.statements_found,
                       "reported": len(reported["statements"]) if reported else 0},
        "disagreements": outcome.disagreements(),
    }


# ---------------------------------------------------------------- output

METRIC_COLUMNS = ("detection", "interactivity", "rw_set", "statement_recall", "cda_mismatch", "effect_recall")


def render_text(result: dict) -> str:
    def cell(value):
        return "-" if value is None else f"{value:.2f}"
    lines = ["scope      txns  " + "  ".join(f"{name:>16}" for name in METRIC_COLUMNS)]
    rows = list(result["per_orm"].items()) + [("overall", result["overall"])]
    for scope, metrics in rows:
        lines.append(f"{scope:<10} {metrics['transactions']:>4}  "
                     + "  ".join(f"{cell(metrics[name]):>16}" for name in METRIC_COLUMNS))
    counts = result["overall"]["counts"]
    tolerance = result["tolerance"]
    lines.append(f"statements: {counts['statements_found']}/{counts['statements']} labelled found; "
                 f"cda compared on {counts['cda_compared']}; effects {counts['effects_found']}/{counts['effects']}; "
                 f"line tolerance {tolerance['statement_lines']} (statements), {tolerance['boundary_lines']} (boundaries)")
    lines.append("")
    lines.append("disagreements:")
    for txn in result["transactions"]:
        if txn["disagreements"]:
            lines.append(f"  {txn['id']}  {txn['file']}:{txn['line']}")
            lines.extend(f"      {item}" for item in txn["disagreements"])
    if result["wrappers"]:
        lines.append("")
        lines.append("wrappers and non-transactions (not scored):")
        for wrapper in result["wrappers"]:
            state = "reported as a transaction" if wrapper["reported_as_transaction"] else "not reported"
            lines.append(f"  {wrapper['id']}  {wrapper['role']}  {wrapper['file']}:{wrapper['line']}  {state}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labels", type=Path, help="label file (JSON, corpus/labels/README.md)")
    parser.add_argument("--checkouts", type=Path, help="folder holding one checkout per application")
    parser.add_argument("--scan-json", type=Path, help="folder of scans made before, one <app>.json each")
    parser.add_argument("--txscan", help="txscan program to run (default: the one of this environment)")
    parser.add_argument("--save-scans", type=Path, help="also write each scan to DIR/<app>.json")
    parser.add_argument("--tolerance", type=int, default=1, help="statement line tolerance (default 1)")
    parser.add_argument("--boundary-tolerance", type=int, default=2, help="boundary line tolerance (default 2)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    args = parser.parse_args(argv)
    try:
        labels = load_labels(args.labels)
        scans = collect_scans(labels, args.checkouts, args.scan_json, args.txscan, args.save_scans)
    except InputError as error:
        print(f"score_labels: {error}", file=sys.stderr)
        return 2
    result = score(labels, scans, args.tolerance, args.boundary_tolerance)
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
    else:
        print(render_text(result), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
