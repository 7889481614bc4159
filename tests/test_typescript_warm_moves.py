"""Kept TypeScript walks moved to new lines (ts-plugin/src/warm-moves.ts): after an edit that
moves code, `txscan scan` and `txscan lint` with the warm cache print byte for byte what they
print without one, reuse every transaction whose code only moved, and walk again exactly the
ones whose code changed."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.cache import ScanCache
from analyzer.config import load
from analyzer.lint import command
from analyzer.scan import scan
from conftest import replace_once, typeorm_project
from test_typescript_warm import ENTITY

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="the TypeScript front end needs node")

PRICING = """import { EntityManager } from "typeorm";
import { Order } from "./order.entity";

export class Pricing {
  async reprice(manager: EntityManager, id: number): Promise<void> {
    const order = await manager.findOneBy(Order, { id });
    if (order) await manager.update(Order, { id }, { total: order.total + 1 });
  }

  async archive(manager: EntityManager, ids: number[]): Promise<void> {
    await this.each(ids, async (id) => {
      await manager.update(Order, { id }, { status: "archived" });
    });
  }

  private async each(ids: number[], work: (id: number) => Promise<void>): Promise<void> {
    for (const id of ids) await work(id);
  }
}
"""

SERVICE = """import { DataSource } from "typeorm";
import { Order } from "./order.entity";
import { Pricing } from "./pricing";

function Audited(): MethodDecorator {
  return () => undefined;
}

export class OrdersService {
  constructor(private readonly dataSource: DataSource, private readonly pricing: Pricing) {}

  @Audited()
  async repriceOrder(id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.pricing.reprice(manager, id);
    });
  }

  @Audited()
  async archiveOrders(ids: number[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.pricing.archive(manager, ids);
      await fetch("https://audit.example.com/archived");
    });
  }

  async count(): Promise<number> {
    return this.dataSource.getRepository(Order).count();
  }
}
"""


def _project(tmp_path: Path) -> Path:
    root = typeorm_project(tmp_path / "shop", {"order.entity.ts": ENTITY, "pricing.ts": PRICING,
                                               "orders.service.ts": SERVICE})
    (root / "txscan.toml").write_text("")
    return root


def _cli_json(root: Path, *extra: str) -> str:
    """`txscan scan ROOT --format json --no-db` as a user runs it."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-m", "analyzer.cli", "scan", str(root), "--format", "json", "--no-db", *extra],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _walked(root: Path, autocommit: bool = True) -> tuple[list[str], str]:
    """(ids walked, IR) of a scan with the project's cache; the IR must be a cold scan's."""
    kw = dict(frontend="typeorm", rewrites=False, autocommit=autocommit)
    warm = scan(root, load(root), cache=ScanCache(root / ".txscan" / "cache"), **kw)
    assert warm.ir_text == scan(root, load(root), **kw).ir_text
    return [w for w in warm.walked if not w.endswith(":autocommit")], warm.ir_text


@pytest.fixture
def warmed(tmp_path):
    root = _project(tmp_path)
    walked, ir_text = _walked(root)
    assert walked == ["src/orders.service.ts:14", "src/orders.service.ts:21"]
    # the callback of `this.each` is named by its line: moved names are checked too
    assert "Pricing.archive.this.each@11" in ir_text
    return root


@pytest.mark.parametrize("file, old, new, walked, moved", [
    # lines between decorators and members: everything reused at the new lines
    ("orders.service.ts", "  @Audited()\n  async repriceOrder",
     "  // audited: every call is logged\n\n  @Audited()\n  /* the price follows the items */\n  async repriceOrder",
     [], ['"src/orders.service.ts:17"', '"src/orders.service.ts:24"']),
    # a helper that grows: the helpers below it move, only its own transaction is walked; the
    # reused one names its callback at the new line
    ("pricing.ts", "    const order = await manager.findOneBy(Order, { id });\n",
     "    const order = await manager.findOneBy(Order, { id });\n    await manager.increment(Order, { id }, \"total\", 0);\n",
     ["src/orders.service.ts:14"], ["Pricing.archive.this.each@12"]),
])
def test_moved_code_is_reused_at_its_new_lines(warmed, file, old, new, walked, moved):
    root = warmed
    replace_once(root / "src" / file, old, new)
    found, ir_text = _walked(root)
    assert found == walked
    assert all(text in ir_text for text in moved)
    assert _cli_json(root) == _cli_json(root, "--no-cache")


def test_a_real_change_to_a_helper_walks_again_exactly_the_transaction_that_reaches_it(warmed):
    root = warmed
    replace_once(root / "src" / "pricing.ts", '{ status: "archived" }', '{ status: "archived", total: 0 }')
    walked, ir_text = _walked(root)
    assert walked == ["src/orders.service.ts:21"]
    archive = next(line for line in ir_text.splitlines() if '"id": "src/orders.service.ts:21"' in line)
    assert '"attribute": "total"' in archive
    assert _cli_json(root) == _cli_json(root, "--no-cache")


def test_a_comment_in_a_method_walks_again_the_transaction_that_reads_it_and_no_other(warmed):
    root = warmed
    replace_once(root / "src" / "orders.service.ts", "      await this.pricing.reprice(manager, id);\n",
                 "      // repriced before the items are read\n      await this.pricing.reprice(manager, id);\n")
    walked, _ = _walked(root)
    assert walked == ["src/orders.service.ts:14"]


def _lint(path: Path, cache: bool) -> dict:
    stream = io.StringIO()
    command.main([path], "json", stream=stream, cache=cache, exit_zero=True)
    document = json.loads(stream.getvalue())
    document.pop("seconds", None)
    return document


def test_lint_after_lines_moved_reports_what_a_lint_without_the_cache_reports(warmed):
    root = warmed
    service = root / "src" / "orders.service.ts"
    _lint(service, cache=True)
    replace_once(service, "  @Audited()\n  async archiveOrders", "  @Audited()\n  // archived orders stay\n  async archiveOrders")
    replace_once(root / "src" / "pricing.ts", "export class Pricing {\n", "export class Pricing {\n  // prices\n")
    document = _lint(service, cache=True)
    assert document == _lint(service, cache=False)
    assert [f["line"] for f in document["findings"] if f["path"] == "src/orders.service.ts"] == [24]
    walked, _ = _walked(root, autocommit=False)
    assert walked == []
