"""TX111 write-in-loop."""

from __future__ import annotations

from ..model import Rule, RuleDoc

_WRITES = ("write", "insert", "delete")


def check(ctx):
    for txn in ctx.linted_transactions:
        steps = {fs.id: fs.step for fs in txn.flat if fs.id}
        seen = set()
        for reason in txn.verdict["reasons"]:
            if reason.get("category") != "loop-over-results":
                continue
            step, read = steps.get(reason.get("statement")), steps.get(reason.get("depends_on"))
            if step is None or read is None or step["kind"] not in _WRITES or step["id"] in seen:
                continue
            seen.add(step["id"])
            yield ctx.step_finding(
                RULE.code, txn, step,
                f"{step['kind']} `{step['api']}` runs once per row fetched at line {read['line']}: one round trip "
                "per row while the transaction holds its locks",
                "Write the rows in one statement: `queryset.update(...)` with `F()`/`Case()` expressions, "
                "`bulk_update()`/`bulk_create()`; in TypeORM `createQueryBuilder().update()...where(...)` or one "
                "`save([...])` of all rows.",
                label=f"{step['kind']} per fetched row")


RULE = Rule(
    code="TX111",
    name="write-in-loop",
    summary="Writes in a loop over rows fetched in the same transaction",
    doc=RuleDoc(
        what="Finds a write, insert or delete that runs once per row of a read made earlier in the same "
             "transaction (`for row in queryset: ... row.save()`).",
        why="Each iteration is a round trip while the transaction holds its locks, so the transaction's "
            "length grows with the data; it is also non-strictly interactive (the statements depend on the "
            "read), which deterministic databases cannot schedule in one shot.",
        example="""\
with transaction.atomic():
    for item in Item.objects.filter(cart_id=cart_id):
        item.price = item.price * 2
        item.save()""",
        use_instead="""\
with transaction.atomic():
    Item.objects.filter(cart_id=cart_id).update(price=F("price") * 2)""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  const items = await manager.findBy(Item, { cartId });
  for (const item of items) {
    await manager.update(Item, { id: item.id }, { price: item.price * 2 });
  }
});""",
        use_instead_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.createQueryBuilder().update(Item).set({ price: () => "price * 2" })
    .where("cartId = :cartId", { cartId }).execute();
});""",
        fix="One set-based statement (`update()` with expressions, `bulk_update`, `bulk_create`), or a single "
            "`save()` of all changed entities.",
        default_reason="Off by default: many loops compute a different value per row that no single "
                       "statement expresses; it is a performance and interactivity hint, not a bug.",
    ),
    check=check,
    enabled_by_default=False,
    precision="high",
    tags=("interactivity", "performance"),
)
