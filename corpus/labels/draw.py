#!/usr/bin/env python3
"""Draw transaction boundaries at random from real application checkouts.

    python3 corpus/labels/draw.py --checkouts /work/real --seed 20261123 --django 24 --typeorm 16

An independent finder (regular expressions over source lines, not txscan): it lists every
line that opens a transaction, skipping tests, migrations and build output, sorts the
candidates, and draws a fixed number per ORM with `random.Random(seed)`, stratified by
application: each application gets a share of its ORM's draws proportional to the square
root of its candidate count (largest remainder rounding), so one large application (vendure
has ~200 resolver-level boundaries) does not fill the whole TypeORM draw while large
applications still get more draws than small ones. The same checkouts and seed give the
same draw. It prints one JSON object per drawn boundary.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

# (name, orm, subdir) of the applications the draw covers.
APPS = [
    ("saleor", "django", "saleor"), ("netbox", "django", "netbox"), ("taiga-back", "django", "."),
    ("healthchecks", "django", "."), ("pretalx", "django", "src"), ("flagsmith", "django", "api"),
    ("paperless-ngx", "django", "src"), ("django-oscar", "django", "."), ("wger", "django", "."),
    ("vendure", "typeorm", "packages/core"), ("flowise", "typeorm", "packages/server"),
    ("ever-traduora", "typeorm", "api"),
]

# A Django boundary: `with ...atomic...(`, a decorator naming atomic, or
# method_decorator(atomic). Definitions of wrappers (`def ...atomic`) are not boundaries.
DJANGO = re.compile(r"^\s*(with\s+.*\batomic\w*\s*\(|@\s*[\w.]*atomic\w*\b|@method_decorator\(\s*[\w.]*atomic)")
TYPEORM = re.compile(r"\.transaction\s*\(|@Transactional\s*\(|@Transaction\s*\(|\.startTransaction\s*\(")
SKIP_PARTS = {"tests", "test", "migrations", "node_modules", "dist", "build", "e2e", "__tests__", "mock", "mocks",
              "fixtures", "testing", "venv", ".venv"}
SKIP_NAME = re.compile(r"(^test_|_test\.py$|\.spec\.ts$|\.test\.ts$|\.e2e-spec\.ts$|\.d\.ts$|^conftest\.py$)")


def candidates(checkouts: Path) -> list[dict]:
    found = []
    for name, orm, subdir in APPS:
        root = checkouts / name / subdir
        if not root.is_dir():
            sys.exit(f"{root}: checkout missing")
        suffix, pattern = (".py", DJANGO) if orm == "django" else (".ts", TYPEORM)
        for path in sorted(root.rglob(f"*{suffix}")):
            rel = path.relative_to(root)
            if SKIP_PARTS & set(rel.parts[:-1]) or SKIP_NAME.search(path.name):
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                stripped = line.strip()
                if stripped.startswith(("#", "//", "*", "/*")) or not pattern.search(line):
                    continue
                found.append({"app": name, "orm": orm, "subdir": subdir, "file": rel.as_posix(), "line": number})
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkouts", type=Path, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--django", type=int, default=24)
    parser.add_argument("--typeorm", type=int, default=16)
    parser.add_argument("--counts", action="store_true", help="print candidate counts per application")
    args = parser.parse_args()
    pool = candidates(args.checkouts)
    if args.counts:
        for name, orm, _ in APPS:
            print(name, orm, sum(1 for c in pool if c["app"] == name))
        return 0
    rng = random.Random(args.seed)
    for orm, count in (("django", args.django), ("typeorm", args.typeorm)):
        for name, share in allocate(pool, orm, count):
            members = [c for c in pool if c["app"] == name]
            for pick in sorted(rng.sample(members, share), key=lambda c: (c["file"], c["line"])):
                print(json.dumps(pick))
    return 0


def allocate(pool: list[dict], orm: str, count: int) -> list[tuple[str, int]]:
    """Draws per application of one ORM: proportional to sqrt(candidates), largest remainder."""
    sizes = {name: sum(1 for c in pool if c["app"] == name) for name, kind, _ in APPS if kind == orm}
    weights = {name: size ** 0.5 for name, size in sizes.items()}
    total = sum(weights.values())
    exact = {name: count * w / total for name, w in weights.items()}
    shares = {name: min(int(e), sizes[name]) for name, e in exact.items()}
    for name in sorted(exact, key=lambda n: (-(exact[n] - int(exact[n])), n)):
        if sum(shares.values()) >= count:
            break
        if shares[name] < sizes[name]:
            shares[name] += 1
    return [(name, shares[name]) for name in sizes]


if __name__ == "__main__":
    sys.exit(main())
