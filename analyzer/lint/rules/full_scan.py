"""TX204 full-scan."""

from __future__ import annotations

from ..inferability import DEFAULT_REASON, inferability_findings
from ..model import Rule, RuleDoc


def check(ctx):
    yield from inferability_findings(
        ctx, RULE.code, ("full-scan",),
        "`{api}` reads or writes every {entity} row inside the transaction (no predicate)",
        "Restrict the statement by key, or move it out of the transaction.")


RULE = Rule(
    code="TX204",
    name="full-scan",
    summary="Statement without a predicate (every row of the table) inside a transaction",
    doc=RuleDoc(
        what="Finds statements inside transactions with no predicate at all (`Model.objects.all()`, "
             "`manager.find(Entity)`).",
        why="The statement touches the whole table: its read/write set is the table, it conflicts with every "
            "other transaction on it, and it grows with the data.",
        example="""\
@transaction.atomic
def reset():
    Counter.objects.all().update(value=0)""",
        use_instead="""\
@transaction.atomic
def reset(pks):
    Counter.objects.filter(pk__in=pks).update(value=0)""",
        example_typeorm="""\
await dataSource.transaction((manager) => manager.update(Counter, {}, { value: 0 }));""",
        use_instead_typeorm="""\
await dataSource.transaction((manager) => manager.update(Counter, { id: In(ids) }, { value: 0 }));""",
        fix="Select the rows by key, or run the statement outside the transaction if it need not be atomic "
            "with the rest.",
        default_reason=DEFAULT_REASON,
    ),
    check=check,
    enabled_by_default=False,
    precision="high",
    level="note",
    tags=("inferability", "deterministic-databases"),
)
