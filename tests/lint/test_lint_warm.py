"""`txscan lint FILE` with the warm cache (.txscan/cache): what it reuses never hides what a change
elsewhere causes. The linted transaction calls a helper in another file; when the helper
changes, the verdict at the linted file changes as a lint without a cache finds it, and a
finding located in a linted helper comes from a transaction in a file not linted."""

from __future__ import annotations

import io
import json
from pathlib import Path

from analyzer.lint import command

MODELS = """\
from django.db import models


class Order(models.Model):
    total = models.IntegerField()
"""

HELPERS = """\
import requests

from shop.models import Order


def record(order_id):
    Order.objects.filter(pk=order_id).update(total=0)


def notify(order_id):
    return order_id
"""

ORDERS = """\
from django.db import transaction

from shop.helpers import notify, record


@transaction.atomic
def close(order_id):
    record(order_id)
    notify(order_id)
"""


FILES = {"manage.py": "", "shop/__init__.py": "", "shop/models.py": MODELS, "shop/helpers.py": HELPERS,
         "shop/orders.py": ORDERS}


def _project(tmp_path: Path) -> Path:
    for path, text in ((tmp_path / "project" / rel, text) for rel, text in FILES.items()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "project"


def _lint(path: Path, cache: bool, select: list[str] | None = None) -> tuple[int, dict]:
    stream = io.StringIO()
    status = command.main([path], "json", select=select, stream=stream, cache=cache)
    return status, json.loads(stream.getvalue())


def _codes(document: dict) -> list[tuple[str, str, int]]:
    return [(f["code"], f["path"], f["line"]) for f in document["findings"]]


def test_changed_helper_in_another_file_changes_the_verdict_of_the_linted_file(tmp_path):
    root = _project(tmp_path)
    orders = root / "shop" / "orders.py"
    every_rule = ["TX"]  # empty-transaction (TX308) is off by default
    assert _lint(orders, True, every_rule) == (0, _lint(orders, False, every_rule)[1])
    assert (root / ".txscan" / "cache" / "django.json").is_file()
    assert _lint(orders, True, every_rule)[0] == 0  # warm, nothing changed
    # The helper stops writing: the transaction in orders.py now runs no statement (TX308 there).
    helpers = root / "shop" / "helpers.py"
    helpers.write_text(HELPERS.replace("    Order.objects.filter(pk=order_id).update(total=0)\n", "    return order_id\n"))
    status, warm = _lint(orders, True, every_rule)
    assert (status, _codes(warm)) == (1, [("TX308", "shop/orders.py", 6)])
    assert warm == _lint(orders, False, every_rule)[1]
    assert _lint(orders, True) == (0, _lint(orders, False)[1])  # not reported where it is not enabled


def test_finding_in_a_linted_helper_comes_from_a_transaction_in_a_file_not_linted(tmp_path):
    root = _project(tmp_path)
    helpers = root / "shop" / "helpers.py"
    assert _lint(helpers, cache=True)[0] == 0
    # A line added above the helpers moves them (reused at their new lines), and notify() now
    # posts over HTTP inside close()'s transaction (TX101 at the call, in helpers.py).
    helpers.write_text("# moved\n" + HELPERS.replace("    return order_id\n",
                                                     "    requests.post('https://example.com', json=order_id)\n"))
    status, warm = _lint(helpers, cache=True)
    assert (status, _codes(warm)) == (1, [("TX101", "shop/helpers.py", 12)])
    assert warm["findings"][0]["boundary"]["path"] == "shop/orders.py"
    assert warm == _lint(helpers, cache=False)[1]
    # The rules off by default run when selected, with the same findings warm and cold.
    assert _lint(helpers, cache=True, select=["TX"]) == _lint(helpers, cache=False, select=["TX"])


def test_lint_leaves_the_autocommit_walks_of_the_cache_for_the_next_scan(tmp_path):
    from analyzer.cache import ScanCache
    from analyzer.config import load
    from analyzer.scan import scan

    root = _project(tmp_path)
    (root / "shop" / "views.py").write_text("from shop.models import Order\n\n\ndef show(request, pk):\n"
                                            "    return Order.objects.get(pk=pk)\n")
    folder = root / ".txscan" / "cache"
    cold = scan(root, load(root), cache=ScanCache(folder))
    after_scan = (folder / "django.json").read_text()
    walks = [line for line in after_scan.splitlines() if line.startswith("autocommit\t")]
    assert walks and any(t["boundary"] == "autocommit" for t in cold.analyses["pk"]["transactions"])
    _lint(root / "shop" / "orders.py", cache=True)
    after_lint = (folder / "django.json").read_text()
    assert [line for line in after_lint.splitlines() if line.startswith("autocommit\t")] == walks
    warm = scan(root, load(root), cache=ScanCache(folder))
    assert warm.ir_text == cold.ir_text and warm.walked == []


def test_lint_works_out_the_projects_cda_mode_alone_with_the_findings_of_both(tmp_path):
    """The rules read one CDA mode's verdicts and no excerpts: a plain lint works out that mode
    only, --fix and --diff both (their rewrites come from either mode's suggestions); the
    findings are the same."""
    from analyzer.lint import LintOptions, run

    root = _project(tmp_path)
    helpers = root / "shop" / "helpers.py"
    helpers.write_text(HELPERS.replace("    return order_id\n", "    requests.post('https://example.com', json=order_id)\n"))
    for setting in ("", "[tool.txscan]\ncda = \"auto\"\n"):
        (root / "pyproject.toml").write_text(setting)
        mode = "auto" if setting else "pk"
        alone = run(LintOptions(paths=[root], overrides=_every_rule()))
        both = run(LintOptions(paths=[root], overrides=_every_rule(), every_cda_mode=True))
        assert list(alone.context.result.analyses) == [mode]
        assert sorted(both.context.result.analyses) == ["auto", "pk"]
        assert alone.findings and alone.findings == both.findings
        assert alone.notes == both.notes
        # nor are the transactions' excerpts read off the files (no rule reads them)
        assert not any("excerpt" in t for t in alone.context.analysis["transactions"])


def _every_rule():
    from analyzer.lint.settings import Overrides

    return Overrides(select=("TX",))
