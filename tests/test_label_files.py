"""corpus/labels: the hand-label files load with the scorer's own validation and agree with the
corpus manifest; corpus/labels/draw.py draws reproducibly, leaves labelled applications out and
lists replacements that were not drawn.

The draw runs on small checkouts written here (the real applications are not part of the
project), with the same finder and generator as the real draws.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT

LABELS = ROOT / "corpus" / "labels"
LABEL_FILES = ("real.json", "holdout.json")
DRAW = LABELS / "draw.py"
MANIFEST = tomllib.loads((ROOT / "corpus" / "real.toml").read_text("utf-8"))["app"]
KINDS = {"read", "write", "insert", "delete", "lock", "raw"}


def _scorer():
    spec = importlib.util.spec_from_file_location("score_labels", ROOT / "scripts" / "score_labels.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=LABEL_FILES)
def labels(request):
    return _scorer().load_labels(LABELS / request.param)   # raises InputError on a bad file


def test_apps_are_pinned_as_in_the_manifest(labels):
    pinned = {app["name"]: app for app in MANIFEST}
    for app in labels["apps"]:
        entry = pinned[app["name"]]
        assert (app["orm"], app["url"], app["commit"], app["subdir"]) == (
            entry["orm"], entry["url"], entry["commit"], entry.get("subdir", "."))
    assert {t["app"] for t in labels["transactions"]} == {a["name"] for a in labels["apps"]}


def test_every_label_is_complete_and_well_formed(labels):
    ids = [t["id"] for t in labels["transactions"]]
    assert len(ids) == len(set(ids))
    for txn in labels["transactions"]:
        assert txn["confidence"] in {"high", "medium", "low"} and txn["note"], txn["id"]
        assert not txn["file"].startswith("/") and txn["line"] > 0, txn["id"]
        if txn.get("boundary_role"):
            assert txn["statements"] == [] and txn["strict_reasons"] == [], txn["id"]
            continue
        assert bool(txn["strict_reasons"]) == (txn["interactivity"] == "interactive-strict"), txn["id"]
        for statement in txn["statements"]:
            assert statement["kind"] in KINDS and statement["entity"], txn["id"]
            assert isinstance(statement["cda_mismatch"], bool), txn["id"]
            assert statement.get("line_end", statement["line"]) >= statement["line"], txn["id"]
        if not txn["statements"]:   # an empty transaction is one-shot and fully inferable
            assert (txn["interactivity"], txn["rw_set"]) == ("one-shot", "full"), txn["id"]


def test_the_holdout_set_shares_no_application_with_the_first_set():
    first, held_out = (json.loads((LABELS / name).read_text("utf-8")) for name in LABEL_FILES)
    assert not {a["name"] for a in first["apps"]} & {a["name"] for a in held_out["apps"]}
    scored = [t for t in held_out["transactions"] if not t.get("boundary_role")]
    orms = {a["name"]: a["orm"] for a in held_out["apps"]}
    for orm, least_labels, least_apps in (("django", 16, 8), ("typeorm", 12, 6)):
        mine = [t for t in scored if orms[t["app"]] == orm]
        assert len(mine) >= least_labels and len({t["app"] for t in mine}) >= least_apps


# ---------------------------------------------------------------- corpus/labels/draw.py

def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def checkouts(tmp_path):
    """Four small applications: three Django, one TypeORM, with boundaries and decoys."""
    root = tmp_path / "real"
    for name, count in (("alpha", 5), ("beta", 3), ("gamma", 2)):
        body = "from django.db import transaction\n\n" + "".join(
            f"def f{i}():\n    with transaction.atomic():\n        pass\n\n" for i in range(count))
        _write(root / name / "app" / "views.py", body)
        _write(root / name / "app" / "tests" / "test_views.py", body)        # skipped: tests
        _write(root / name / "app" / "migrations" / "0001_x.py", body)       # skipped: migrations
    _write(root / "delta" / "src" / "svc.ts",
           "".join(f"export const f{i} = (ds) => ds.transaction(async (em) => em.save({{}}));\n" for i in range(4)))
    manifest = tmp_path / "apps.toml"
    manifest.write_text("".join(
        f'[[app]]\nname = "{name}"\norm = "{orm}"\nsubdir = "{sub}"\n'
        for name, orm, sub in (("alpha", "django", "app"), ("beta", "django", "app"), ("gamma", "django", "app"),
                               ("delta", "typeorm", "src"))))
    labelled = tmp_path / "labelled.json"
    labelled.write_text(json.dumps({"apps": [{"name": "gamma", "orm": "django", "subdir": "app"}], "transactions": []}))
    return root, manifest, labelled


def draw(*args):
    result = subprocess.run([sys.executable, str(DRAW), *map(str, args)], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_draw_over_a_manifest_leaves_labelled_applications_out(checkouts):
    root, manifest, labelled = checkouts
    common = ("--checkouts", root, "--manifest", manifest, "--seed", 7)
    counts = subprocess.run([sys.executable, str(DRAW), *map(str, common), "--exclude-labels", labelled, "--counts"],
                            capture_output=True, text=True, timeout=300, check=True).stdout
    assert counts.split("\n") == ["alpha django 5", "beta django 3", "delta typeorm 4", ""]
    picks = draw(*common, "--exclude-labels", labelled, "--django", 4, "--typeorm", 2)
    assert {p["app"] for p in picks} == {"alpha", "beta", "delta"}
    assert all(p["file"] in {"views.py", "svc.ts"} for p in picks)   # tests and migrations never drawn
    assert sum(p["orm"] == "django" for p in picks) == 4 and sum(p["orm"] == "typeorm" for p in picks) == 2
    assert picks == draw(*common, "--exclude-labels", labelled, "--django", 4, "--typeorm", 2)   # same seed, same draw
    assert "gamma" in {p["app"] for p in draw(*common, "--django", 9, "--typeorm", 1)}


def test_draw_picks_applications_and_replacements(checkouts):
    root, manifest, labelled = checkouts
    picks = draw("--checkouts", root, "--manifest", manifest, "--exclude-labels", labelled, "--seed", 3,
                 "--django", 2, "--typeorm", 1, "--apps", "1,1", "--replacements", 3)
    drawn = [p for p in picks if "replacement" not in p]
    spares = [p for p in picks if "replacement" in p]
    assert len({p["app"] for p in drawn if p["orm"] == "django"}) == 1   # one Django application picked
    assert [p["replacement"] for p in spares] == [1, 2, 3, 1, 2, 3]
    strip = [{k: v for k, v in p.items() if k != "replacement"} for p in spares]
    assert not any(p in drawn for p in strip) and len({json.dumps(p) for p in strip}) == 6
    assert all(p["app"] != "gamma" for p in picks)
    # the replacements come after the draw: asking for them leaves the draw itself unchanged
    assert drawn == draw("--checkouts", root, "--manifest", manifest, "--exclude-labels", labelled, "--seed", 3,
                         "--django", 2, "--typeorm", 1, "--apps", "1,1")
