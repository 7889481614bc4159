#!/usr/bin/env python3
"""Draw transaction boundaries at random from real application checkouts.

    python3 corpus/labels/draw.py --checkouts /work/real --seed 20261123 --django 24 --typeorm 16
    python3 corpus/labels/draw.py --checkouts /work/real --manifest corpus/real.toml \
        --exclude-labels corpus/labels/real.json --seed 20261124 --django 16 --typeorm 12 --apps 8,6

An independent finder (regular expressions over source lines, not txscan): it lists every
line that opens a transaction, skipping tests, migrations and build output, sorts the
candidates, and draws a fixed number per ORM with `random.Random(seed)`, stratified by
application: each application gets a share of its ORM's draws proportional to the square
root of its candidate count (largest remainder rounding), so one large application (vendure
has ~200 resolver-level boundaries) does not fill the whole TypeORM draw while large
applications still get more draws than small ones. The same checkouts and seed give the
same draw. It prints one JSON object per drawn boundary.

Without --manifest the applications are the twelve of the first draw (APPS below), so that
draw stays reproducible. With --manifest the applications are those of a corpus manifest
(corpus/real.toml), minus those of --exclude-labels files (a held-out draw never meets an
application already labelled); --apps D,T first picks D Django and T TypeORM applications at
random among those with candidates (same generator), then stratifies the draws over them.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tomllib
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


def candidates(checkouts: Path, apps: list[tuple[str, str, str]]) -> list[dict]:
    found = []
    for name, orm, subdir in apps:
        root = checkouts / name / subdir
        if not root.is_dir():
            sys.exit(f"{root}: checkout missing")
        suffix, pattern = (".py", DJANGO) if orm == "django" else (".ts", TYPEORM)
        for path in sorted(root.rglob(f"*{suffix}")):
            rel = path.relative_to(root)
            if SKIP_PARTS & set(rel.parts[:-1]) or SKIP_NAME.search(path.name) or not path.is_file():
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
    parser.add_argument("--manifest", type=Path, help="draw over the applications of this manifest instead of APPS")
    parser.add_argument("--exclude-labels", type=Path, action="append", default=[],
                        help="leave out the applications of this label file (repeatable)")
    parser.add_argument("--apps", help="D,T: draw over D Django and T TypeORM applications picked at random")
    parser.add_argument("--replacements", type=int, default=0,
                        help="after the draw, this many further candidates per ORM, in order, from every application "
                             "of the pool, to label in place of drawn lines that are not transactions")
    args = parser.parse_args()
    apps = manifest_apps(args.manifest, args.exclude_labels) if args.manifest else APPS
    pool = candidates(args.checkouts, apps)
    if args.counts:
        for name, orm, _ in apps:
            print(name, orm, sum(1 for c in pool if c["app"] == name))
        return 0
    rng = random.Random(args.seed)
    if args.apps:
        apps = pick_apps(pool, apps, dict(zip(("django", "typeorm"), map(int, args.apps.split(",")))), rng)
    drawn = []
    for orm, count in (("django", args.django), ("typeorm", args.typeorm)):
        for name, share in allocate(pool, apps, orm, count, floor=1 if args.apps else 0):
            members = [c for c in pool if c["app"] == name]
            for pick in sorted(rng.sample(members, share), key=lambda c: (c["file"], c["line"])):
                drawn.append(pick)
                print(json.dumps(pick))
    for orm in ("django", "typeorm") if args.replacements else ():
        rest = [c for c in pool if c["orm"] == orm and c not in drawn]
        for number, pick in enumerate(rng.sample(rest, min(args.replacements, len(rest))), 1):
            print(json.dumps({**pick, "replacement": number}))
    return 0


def manifest_apps(manifest: Path, exclude: list[Path]) -> list[tuple[str, str, str]]:
    """(name, orm, subdir) of the manifest's applications, minus those of the label files."""
    labelled = {app["name"] for path in exclude for app in json.loads(path.read_text())["apps"]}
    entries = tomllib.loads(manifest.read_text())["app"]
    return [(a["name"], a["orm"], a.get("subdir", ".")) for a in entries if a["name"] not in labelled]


def pick_apps(pool: list[dict], apps: list[tuple[str, str, str]], wanted: dict[str, int],
              rng: random.Random) -> list[tuple[str, str, str]]:
    """`wanted[orm]` applications of each ORM with at least one candidate, uniformly at random."""
    having = {c["app"] for c in pool}
    chosen = set()
    for orm in ("django", "typeorm"):
        names = sorted(name for name, kind, _ in apps if kind == orm and name in having)
        chosen.update(rng.sample(names, min(wanted.get(orm, 0), len(names))))
    return [app for app in apps if app[0] in chosen]


def allocate(pool: list[dict], apps: list[tuple[str, str, str]], orm: str, count: int,
             floor: int = 0) -> list[tuple[str, int]]:
    """Draws per application of one ORM: proportional to sqrt(candidates), largest remainder,
    at least `floor` each (the applications picked by --apps all take part)."""
    sizes = {name: sum(1 for c in pool if c["app"] == name) for name, kind, _ in apps if kind == orm}
    weights = {name: size ** 0.5 for name, size in sizes.items()}
    total = sum(weights.values())
    exact = {name: count * w / total for name, w in weights.items()}
    shares = {name: min(max(int(e), floor), sizes[name]) for name, e in exact.items()}
    for name in sorted(exact, key=lambda n: (-(exact[n] - int(exact[n])), n)):
        if sum(shares.values()) >= count:
            break
        if shares[name] < sizes[name]:
            shares[name] += 1
    return [(name, shares[name]) for name in sizes]


if __name__ == "__main__":
    sys.exit(main())
