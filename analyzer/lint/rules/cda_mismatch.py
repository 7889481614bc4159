"""TX201 cda-mismatch."""

from __future__ import annotations

from ..inferability import DEFAULT_REASON, inferability_findings
from ..model import Rule, RuleDoc


def check(ctx):
    yield from inferability_findings(
        ctx, RULE.code, ("cda-mismatch",),
        "`{api}` selects {entity} rows by {attributes}, not by the conflict detection attribute ({cda}): the rows "
        "it touches are known only by running it",
        "Resolve the rows to keys with a reconnaissance read before the transaction and re-check them inside it "
        "(OLLP), or set the entity's CDA in [tool.txscan.cda-entities].")


RULE = Rule(
    code="TX201",
    name="cda-mismatch",
    summary="Statement selects rows by attributes other than the conflict detection attribute",
    doc=RuleDoc(
        what="Finds statements inside transactions whose predicate pins neither the primary key nor the "
             "entity's conflict detection attribute (CDA) with equality, in the CDA mode of the scan "
             "(`[tool.txscan] cda`).",
        why="A deterministic database must know a transaction's read/write set before running it; a row "
            "selected by a non-CDA attribute is known only after a read, so the transaction needs a "
            "reconnaissance step (OLLP) and may abort and retry.",
        example="""\
@transaction.atomic
def close(email):
    Account.objects.filter(email=email).update(closed=True)""",
        use_instead="""\
def close(email):
    pks = list(Account.objects.filter(email=email).values_list("pk", flat=True))
    with transaction.atomic():
        Account.objects.filter(pk__in=pks, email=email).update(closed=True)""",
        example_typeorm="""\
await dataSource.transaction((manager) => manager.update(Account, { email }, { closed: true }));""",
        use_instead_typeorm="""\
const ids = (await repo.find({ where: { email }, select: ["id"] })).map((a) => a.id);
await dataSource.transaction((manager) => manager.update(Account, { id: In(ids), email }, { closed: true }));""",
        fix="A reconnaissance query before the transaction, or the attribute declared as the entity's CDA.",
        default_reason=DEFAULT_REASON,
    ),
    check=check,
    enabled_by_default=False,
    precision="high",
    level="note",
    tags=("inferability", "deterministic-databases"),
)
