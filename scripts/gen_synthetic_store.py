#!/usr/bin/env python3
"""Write a synthetic survey store at the study's scale, for measuring `txscan report` (page sizes, how a
browser copes with tens of thousands of transactions).

    .venv/bin/python scripts/gen_synthetic_store.py OUT.db [--transactions 40000] [--apps 128]
        [--explicit-share 0.1] [--seed 1]

Every row is made up here (application, file, function and entity names are generated) and written
through the store's own writer (analyzer.store.write_app), in both CDA modes, so the store is what a
survey of that size would leave: mostly autocommit statements (one statement, one-shot) and a tenth
explicit transactions with several statements, reasons, incomplete verdicts, suggested rewrites with
code and excerpts of up to 14 lines. The same arguments give the same store, row for row.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analyzer import __version__, store  # noqa: E402

ENTITIES = ["Order", "OrderLine", "Customer", "Invoice", "Payment", "Product", "StockItem", "Coupon", "Shipment",
            "Account", "Entry", "Thread", "Post", "Vote", "Tag", "Membership", "Team", "Project", "Ticket", "Comment"]
APIS = {"django": ["get", "filter", "update", "create", "save", "delete", "select_for_update", "exists", "count",
                   "bulk_create", "get_or_create"],
        "typeorm": ["findOne", "findOneBy", "find", "save", "update", "insert", "delete", "increment", "getOne",
                    "getMany", "count"]}
KINDS = {"get": "read", "filter": "read", "exists": "read", "count": "read", "findOne": "read", "findOneBy": "read",
         "find": "read", "getOne": "read", "getMany": "read", "update": "write", "save": "write", "increment": "write",
         "create": "insert", "insert": "insert", "bulk_create": "insert", "get_or_create": "insert", "delete": "delete",
         "select_for_update": "lock"}
INFERABILITY = ["key", "key", "key", "insert", "cda-mismatch", "cda-mismatch", "dependent", "range", "full-scan",
                "pattern", "unknown"]
EFFECTS = ["http", "email", "queue", "cache", "storage"]
NONSTRICT = ["read-modify-write", "dependent-key", "conditional", "loop-over-results", "generated-key"]
PARAMETERS = ["pk", "id", "order_id", "user.id", "request.user", "account_id", "slug", "token", "team_id", "data.id"]
BOUNDARIES = {"django": ["atomic-decorator", "atomic-context"], "typeorm": ["datasource-transaction", "query-runner"]}


def _statement(rng: random.Random, frontend: str, file: str, line: int, index: int) -> dict:
    api = rng.choice(APIS[frontend])
    entity = rng.choice(ENTITIES)
    inferability = "insert" if KINDS[api] == "insert" else rng.choice(INFERABILITY)
    flags = ["cda-mismatch"] if inferability in ("cda-mismatch", "range", "pattern") and rng.random() < 0.7 else []
    return {"id": f"s{index}", "file": file, "line": line, "entity": entity, "kind": KINDS[api], "api": api,
            "attributes": [rng.choice(["pk", "email", "status", "owner", "slug", "created"])],
            "inferability": inferability, "flags": flags, "via": []}


def _rw(statements: list[dict]) -> str:
    known = sum(s["inferability"] in ("key", "insert") for s in statements)
    return "full" if known == len(statements) else "none" if known == 0 else "partial"


def _auto(statement: dict, rng: random.Random) -> dict:
    """Mode auto: some CDA mismatches of mode pk are covered by the chosen CDA."""
    if statement["inferability"] == "cda-mismatch" and rng.random() < 0.5:
        return {**statement, "inferability": "key", "flags": []}
    return statement


def _transaction(rng: random.Random, frontend: str, module: str, number: int, autocommit: bool) -> dict:
    file = f"{module}/{'views' if autocommit else 'services'}_{number % 17}.{'py' if frontend == 'django' else 'ts'}"
    line = 10 + 7 * number
    # Call sites come in groups of four per function, as views and services run several queries each.
    function = f"{module.replace('/', '.')}.handler_{number // 4}"
    count = 1 if autocommit else rng.randint(2, 8)
    statements = [_statement(rng, frontend, file, line + 1 + i, i) for i in range(count)]
    reasons, suggestions = [], []
    verdict = "one-shot"
    if not autocommit:
        roll = rng.random()
        if roll < 0.1:
            verdict = "interactive-strict"
            reasons = [{"category": rng.choice(EFFECTS), "callee": f"client.call_{number % 9}", "file": file,
                        "line": line + count + 1}]
        elif roll < 0.55:
            verdict = "interactive-nonstrict"
            reasons = [{"category": rng.choice(NONSTRICT), "callee": statements[-1]["api"], "file": file,
                        "line": statements[-1]["line"]}]
        if verdict != "one-shot" and rng.random() < 0.5:
            suggestions = [{"kind": "f-expression", "pattern": "read-modify-write", "statement": "s0", "file": file,
                            "line": line + 1, "makes_one_shot": True, "makes_inferable": False,
                            "explanation": "compute the new value in the database instead of in the application",
                            "code": "\n".join(f"    step_{i} = value_{i} + {i}" for i in range(5))}]
    complete = rng.random() > (0.05 if autocommit else 0.3)
    excerpt_lines = 1 if autocommit else min(14, count + 4)
    keys = [f"{s['entity']}[pk=${rng.choice(PARAMETERS)}]" for s in statements]
    return {
        "id": f"{file}:{line}", "file": file, "line": line, "end_line": line + excerpt_lines - 1,
        "function": function, "boundary": "autocommit" if autocommit else rng.choice(BOUNDARIES[frontend]),
        "wrapper": None, "interactivity": verdict, "rw_inferable": _rw(statements), "statements": statements,
        "read_set": [k for k, s in zip(keys, statements, strict=True) if s["kind"] == "read"],
        "write_set": [k for k, s in zip(keys, statements, strict=True) if s["kind"] != "read"],
        "excerpt": "\n".join(f"    line_{line + i} = compute({number}, {i})  # synthetic" for i in range(excerpt_lines)),
        "complete": complete,
        "incomplete": [] if complete else [{"file": file, "line": line + 2, "callee": f"helper_{number % 13}",
                                            "reason": "unresolved-receiver"}],
        "reasons": reasons, "suggestions": suggestions,
    }


def generate(path: Path, transactions: int = 40000, apps: int = 128, explicit_share: float = 0.1,
             seed: int = 1) -> dict:
    """Write the store; returns {"explicit": n, "autocommit": n, "apps": n} per CDA mode."""
    rng = random.Random(seed)
    db = store.connect(path)
    counts = {"explicit": 0, "autocommit": 0, "apps": apps}
    # Applications of very different sizes, as in a real corpus: weights from a long-tailed distribution.
    weights = [rng.paretovariate(1.2) for _ in range(apps)]
    sizes = [max(1, round(transactions * w / sum(weights))) for w in weights]
    sizes[-1] += transactions - sum(sizes)
    sizes[-1] = max(sizes[-1], 1)
    for number, size in enumerate(sizes):
        frontend = "django" if number % 3 else "typeorm"
        name = f"app-{number:03d}"
        pk = []
        for i in range(size):
            autocommit = rng.random() >= explicit_share
            counts["autocommit" if autocommit else "explicit"] += 1
            pk.append(_transaction(rng, frontend, f"{name}/module_{(i // 4) % 23}", i, autocommit))
        auto = [{**t, "statements": [_auto(s, rng) for s in t["statements"]]} for t in pk]
        for t in auto:
            t["rw_inferable"] = _rw(t["statements"])
        analyses = {mode: {"transactions": ts, "entities": [], "diagnostics": [], "cda": {}}
                    for mode, ts in (("pk", pk), ("auto", auto))}
        row = {"name": name, "root": name, "frontend": frontend, "url": f"https://github.com/example/{name}",
               "commit": f"{number:040x}", "subdir": ".", "tool_version": __version__, "settings": {},
               "status": "ok", "files": 10 + size // 5, "lines": 1000 + 40 * size}
        store.write_app(db, row, [], "", analyses)
    db.close()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--transactions", type=int, default=40000)
    parser.add_argument("--apps", type=int, default=128)
    parser.add_argument("--explicit-share", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.out.exists():
        raise SystemExit(f"{args.out} exists; txscan writes only new files")
    counts = generate(args.out, args.transactions, args.apps, args.explicit_share, args.seed)
    print(f"{args.out}: {counts['explicit']} explicit transactions and {counts['autocommit']} autocommit statements"
          f" in {counts['apps']} applications, in each CDA mode")


if __name__ == "__main__":
    main()
