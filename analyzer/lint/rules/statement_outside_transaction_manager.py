"""TX305 statement-outside-transaction-manager."""

from __future__ import annotations

from ..diagnostics import diagnostic_findings
from ..model import Rule, RuleDoc


def check(ctx):
    yield from diagnostic_findings(
        ctx, RULE.code, "escaped-manager",
        "Run the statement through the transaction's `EntityManager` (the callback's `manager`, "
        "`queryRunner.manager`, or `manager.getRepository(Entity)`).")


RULE = Rule(
    code="TX305",
    name="statement-outside-transaction-manager",
    summary="TypeORM statement on another connection inside a transaction",
    doc=RuleDoc(
        what="Finds TypeORM statements issued inside a transaction through a repository, `DataSource` or "
             "manager that is not the transaction's (an injected repository, `this.dataSource.manager`).",
        why="TypeORM transactions are bound to one `EntityManager`; any other repository runs on a different "
            "pooled connection, outside the transaction: it is not rolled back with it, it does not see its "
            "uncommitted rows, and it can deadlock against the transaction's own locks.",
        example="""\
# (TypeORM only)""",
        use_instead="""\
# (TypeORM only)""",
        language="python",
        example_typeorm="""\
await this.dataSource.transaction(async (manager) => {
  await manager.save(order);
  await this.products.decrement({ id: order.productId }, "stock", 1);
});""",
        use_instead_typeorm="""\
await this.dataSource.transaction(async (manager) => {
  await manager.save(order);
  await manager.decrement(Product, { id: order.productId }, "stock", 1);
});""",
        fix="Use the transaction's manager: `manager.getRepository(Product)`, `manager.decrement(...)`.",
    ),
    check=check,
    fix_kinds=("ts-manager",),
    frontends=("typeorm",),
    level="error",
    tags=("hygiene", "typeorm"),
)
