"""TX105 cache-call-in-transaction."""

from __future__ import annotations

from ..effects import after_commit_fix, effect_findings, short
from ..model import Rule, RuleDoc


def check(ctx):
    yield from effect_findings(
        ctx, RULE.code, lambda step: step["category"] == "cache",
        lambda step: f"cache call `{short(step['callee'])}` inside a transaction: other requests see the cached "
                     "value before the commit, and keep it if the transaction rolls back",
        after_commit_fix)


RULE = Rule(
    code="TX105",
    name="cache-call-in-transaction",
    summary="Cache read or write inside a database transaction",
    doc=RuleDoc(
        what="Finds cache calls (Django's cache, Redis, memcached, cache-manager) while a database transaction "
             "is open.",
        why="A cache write inside the transaction publishes data before it is committed; after a rollback the "
            "cache holds values the database never had. A cache delete before commit lets another request "
            "refill the cache with the old rows.",
        example="""\
@transaction.atomic
def rename(pk, name):
    Product.objects.filter(pk=pk).update(name=name)
    cache.delete(f"product:{pk}")""",
        use_instead="""\
@transaction.atomic
def rename(pk, name):
    Product.objects.filter(pk=pk).update(name=name)
    transaction.on_commit(lambda: cache.delete(f"product:{pk}"))""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.update(Product, { id }, { name });
  await cache.del(`product:${id}`);
});""",
        use_instead_typeorm="""\
await dataSource.transaction((manager) => manager.update(Product, { id }, { name }));
await cache.del(`product:${id}`);""",
        fix="Invalidate or fill the cache after commit (`transaction.on_commit`).",
        default_reason="Off by default: many cache calls inside transactions are reads or idempotent "
                       "invalidations whose early run is harmless; select it where the cache must never hold "
                       "uncommitted data.",
    ),
    check=check,
    fix_kinds=("on-commit",),
    enabled_by_default=False,
    precision="medium",
    tags=("interactivity", "external-call", "cache"),
)
