"""The TypeScript warm cache (ts-plugin/src/warm-cache.ts): after each kind of edit, a scan with
the cache gives byte for byte the output of a scan without one, and walks again only the
transactions whose code (or the project-wide facts they use) changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import replace_once, typeorm_project

from analyzer.cache import ScanCache, cachefile
from analyzer.config import load
from analyzer.output import json_contract
from analyzer.scan import scan

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="the TypeScript front end needs node")

ENTITY = """import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class Order {
  @PrimaryGeneratedColumn() id!: number;
  @Column() total!: number;
  @Column() status!: string;
}
"""

PRICING = """import { EntityManager } from "typeorm";
import { Order } from "./order.entity";

export async function reprice(manager: EntityManager, id: number): Promise<void> {
  const order = await manager.findOneBy(Order, { id });
  if (order) await manager.update(Order, { id }, { total: order.total + 1 });
}

export async function archive(manager: EntityManager, id: number): Promise<void> {
  await manager.update(Order, { id }, { status: "archived" });
}
"""

SERVICE = """import { DataSource } from "typeorm";
import { Order } from "./order.entity";
import { archive, reprice } from "./pricing";

export class OrdersService {
  constructor(private readonly dataSource: DataSource) {}

  async repriceOrder(id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await reprice(manager, id);
    });
  }

  async archiveOrder(id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await archive(manager, id);
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
    return root


def _outputs(root: Path, cache: ScanCache | None):
    """(JSON contract of both CDA modes, IR, ids walked) of one scan of `root`."""
    result = scan(root, load(root), frontend="typeorm", rewrites=False, cache=cache)
    documents = "".join(json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                                   len(result.files))) for mode in ("pk", "auto"))
    return documents, result.ir_text, result.walked


@pytest.fixture
def warmed(tmp_path):
    """A project scanned once with a cache in a folder: (root, cache folder, cold outputs)."""
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    cold = _outputs(root, ScanCache(folder))
    assert (folder / "typeorm-walks.json").is_file()
    return root, folder, cold


def _warm_equals_cold(root: Path, folder: Path) -> list[str]:
    """Scan warm and without a cache; the outputs must be the same bytes. The ids walked warm."""
    documents, ir_text, walked = _outputs(root, ScanCache(folder))
    assert (documents, ir_text) == _outputs(root, None)[:2]
    return walked


def _explicit(walked: list[str]) -> list[str]:
    return [w for w in walked if not w.endswith(":autocommit")]


def test_cold_scan_walks_everything_and_an_unchanged_rescan_nothing(warmed):
    root, folder, (documents, ir_text, walked) = warmed
    assert _explicit(walked) == ["src/orders.service.ts:9", "src/orders.service.ts:15"]
    assert any(w.endswith(":autocommit") for w in walked)
    assert _outputs(root, ScanCache(folder)) == (documents, ir_text, [])


def test_a_comment_after_the_last_statement_reuses_the_whole_scan(warmed):
    root, folder, _ = warmed
    (root / "src" / "pricing.ts").write_text(PRICING + "\n// a note\n")
    assert _warm_equals_cold(root, folder) == []


def test_a_changed_helper_walks_only_the_transaction_that_reaches_it(warmed):
    root, folder, (_, cold_ir, _) = warmed
    replace_once(root / "src" / "pricing.ts", '{ status: "archived" }', '{ status: "closed", total: 0 }')
    walked = _warm_equals_cold(root, folder)
    assert walked == ["src/orders.service.ts:15"]
    assert '"closed"' not in cold_ir


def test_a_helper_that_grows_by_a_line_walks_only_its_transaction(warmed):
    root, folder, _ = warmed
    replace_once(root / "src" / "pricing.ts", '  await manager.update(Order, { id }, { status: "archived" });\n',
                 '  await manager.update(Order, { id }, { status: "archived" });\n'
                 '  await manager.delete(Order, { id });\n')
    assert _warm_equals_cold(root, folder) == ["src/orders.service.ts:15"]


def test_a_changed_entity_walks_everything(warmed):
    root, folder, (_, _, cold_walked) = warmed
    replace_once(root / "src" / "order.entity.ts", "  @Column() status!: string;\n",
                 "  @Column() status!: string;\n  @Column() note!: string;\n")
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)


def test_a_changed_signature_walks_everything(warmed):
    root, folder, (_, _, cold_walked) = warmed
    replace_once(root / "src" / "pricing.ts", "export async function archive(manager: EntityManager, id: number): Promise<void> {",
                 "export async function archive(manager: EntityManager, id: number, why = \"\"): Promise<void> {")
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)


def test_an_added_and_a_removed_file_walk_everything(warmed):
    root, folder, (_, _, cold_walked) = warmed
    (root / "src" / "audit.ts").write_text("export function audit(what: string): string {\n  return what;\n}\n")
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)
    (root / "src" / "audit.ts").unlink()
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)


def test_a_new_transaction_in_a_changed_body_is_found(warmed):
    root, folder, _ = warmed
    replace_once(root / "src" / "orders.service.ts", "    return this.dataSource.getRepository(Order).count();\n",
                 "    return this.dataSource.transaction((m) => m.count(Order));\n")
    walked = _warm_equals_cold(root, folder)
    assert "src/orders.service.ts:21" in walked


def test_another_txscan_version_walks_everything(warmed, monkeypatch):
    root, folder, (_, _, cold_walked) = warmed
    monkeypatch.setattr(cachefile, "code_fingerprint", lambda: "another build")
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)


def test_a_damaged_cache_file_is_rebuilt(warmed, capfd):
    root, folder, (_, _, cold_walked) = warmed
    (folder / "typeorm-walks.json").write_text("{not json")
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)
    assert "damaged" in capfd.readouterr().err
    assert _outputs(root, ScanCache(folder))[2] == []


def test_damage_that_leaves_valid_json_is_seen(warmed, capfd):
    """A changed character inside the last output keeps the file valid JSON: the header's digest
    of the body sees it, and nothing of the file is used (it once failed the scan)."""
    root, folder, (_, _, cold_walked) = warmed
    path = folder / "typeorm-walks.json"
    header, body = path.read_text().split("\n", 1)
    assert '"line":' in body
    path.write_text(header + "\n" + body.replace('"line":', '"lint":'))
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)
    assert "damaged" in capfd.readouterr().err
    assert _outputs(root, ScanCache(folder))[2] == []


def test_scans_without_autocommit_transactions_share_the_cache(warmed):
    """`txscan lint` scans explicit transactions only; it reuses what `txscan scan` walked, and
    the autocommit units it did not look at stay in the cache for the next scan."""
    root, folder, _ = warmed
    replace_once(root / "src" / "pricing.ts", '{ status: "archived" }', '{ status: "closed" }')
    lint = scan(root, load(root), frontend="typeorm", rewrites=False, autocommit=False, cache=ScanCache(folder))
    assert lint.walked == ["src/orders.service.ts:15"]
    assert lint.ir_text == scan(root, load(root), frontend="typeorm", rewrites=False, autocommit=False).ir_text
    assert _warm_equals_cold(root, folder) == []
    again = scan(root, load(root), frontend="typeorm", rewrites=False, autocommit=False, cache=ScanCache(folder))
    assert again.walked == [] and again.ir_text == lint.ir_text


def test_a_source_outside_the_scanned_files_that_the_program_reads_is_compared(tmp_path):
    """A module in a folder the scan leaves out (tests) imported by application code is part of
    the program: its change is seen although it is no file of the scan."""
    root = _project(tmp_path)
    (root / "src" / "test").mkdir()
    (root / "src" / "test" / "statuses.ts").write_text('export const ARCHIVED = "archived";\n')
    replace_once(root / "src" / "pricing.ts", 'import { Order } from "./order.entity";\n',
                 'import { Order } from "./order.entity";\nimport { ARCHIVED } from "./test/statuses";\n')
    replace_once(root / "src" / "pricing.ts", '{ status: "archived" }', "{ status: ARCHIVED }")
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    (root / "src" / "test" / "statuses.ts").write_text('export const ARCHIVED = "closed";\n')
    walked = _warm_equals_cold(root, folder)
    assert "src/orders.service.ts:15" in walked


# A helper whose return type is inferred: its signature, not its code, is what other functions
# see of it. `reopen` uses that type without calling it (its walk never enters the helper).
INVOICE = """import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity()
export class Invoice {
  @PrimaryGeneratedColumn() id!: number;
  @Column() status!: string;
}
"""

TARGETS = """import { Order } from "./order.entity";

export function draft() {
  const order = new Order();
  order.status = "draft";
  return order;
}

export function label(id: number) {
  return `order ${id}`;
}
"""

LEDGER = """import { DataSource } from "typeorm";
import { draft } from "./targets";

export class LedgerService {
  constructor(private readonly dataSource: DataSource) {}

  async open(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.save(draft());
    });
  }

  async reopen(order: ReturnType<typeof draft>): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.save(order);
    });
  }
}
"""


# The same helpers as members of an object literal passed to a call whose result a variable
# holds, as TypeORM's custom repositories are (`getRepository(Item).extend({...})`): other code
# sees them through the variable's type.
CUSTOM_TARGETS = """import { Order } from "./order.entity";

function custom<Methods>(methods: Methods & ThisType<Methods>): Methods {
  return methods;
}

export const targets = custom({
  draft() {
    const order = new Order();
    order.status = "draft";
    return order;
  },
  label(id: number) {
    return `order ${id}`;
  },
});
"""

CUSTOM_LEDGER = LEDGER.replace('import { draft } from "./targets";', 'import { targets } from "./targets";') \
    .replace("manager.save(draft())", "manager.save(targets.draft())").replace("typeof draft>", "typeof targets.draft>")


@pytest.fixture(params=["function", "custom repository"])
def inferred(tmp_path, request):
    """A project whose helper's return type is inferred, scanned once with a cache."""
    targets, ledger = (TARGETS, LEDGER) if request.param == "function" else (CUSTOM_TARGETS, CUSTOM_LEDGER)
    root = typeorm_project(tmp_path / "ledger", {"order.entity.ts": ENTITY, "invoice.entity.ts": INVOICE,
                                                 "targets.ts": targets, "ledger.service.ts": ledger})
    folder = tmp_path / "cache"
    cold = _outputs(root, ScanCache(folder))
    assert _explicit(cold[2]) == ["src/ledger.service.ts:8", "src/ledger.service.ts:14"]
    return root, folder, cold


def test_code_that_keeps_an_inferred_return_type_walks_only_what_reaches_it(inferred):
    root, folder, _ = inferred
    replace_once(root / "src" / "targets.ts", '  order.status = "draft";\n', '  order.status = "new";\n  order.total = 0;\n')
    assert _warm_equals_cold(root, folder) == ["src/ledger.service.ts:8"]
    # a comment is not code: the shape stays, and only the unit's own walks go again
    replace_once(root / "src" / "targets.ts", "  order.total", "  // why\n  order.total")
    assert _warm_equals_cold(root, folder) == ["src/ledger.service.ts:8"]


def test_code_that_changes_an_inferred_return_type_changes_its_users_as_a_cold_scan(inferred):
    root, folder, (_, cold_ir, cold_walked) = inferred
    replace_once(root / "src" / "targets.ts", 'import { Order } from "./order.entity";',
                 'import { Invoice } from "./invoice.entity";')
    replace_once(root / "src" / "targets.ts", "new Order()", "new Invoice()")
    walked = _warm_equals_cold(root, folder)
    assert sorted(walked) == sorted(cold_walked)

    # `reopen`, whose walk never enters the helper, now saves an invoice
    def reopen(ir_text: str) -> str:
        return next(line for line in ir_text.splitlines() if '"id": "src/ledger.service.ts:14"' in line)

    assert '"entity": "Order"' in reopen(cold_ir)
    assert '"entity": "Invoice"' in reopen(_outputs(root, None)[1])


def test_an_inferred_return_type_no_walk_read_is_not_kept_and_its_change_walks_everything(inferred):
    """No signature is kept for a function no walk entered (the cold scan asks the checker only
    for those): a change of its code cannot be told apart from a change of its type."""
    root, folder, (_, _, cold_walked) = inferred
    replace_once(root / "src" / "targets.ts", "  return `order ${id}`;", "  const shown = id;\n  return `order ${shown}`;")
    assert sorted(_warm_equals_cold(root, folder)) == sorted(cold_walked)
