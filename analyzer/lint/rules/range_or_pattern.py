"""TX203 range-or-pattern."""

from __future__ import annotations

from ..inferability import DEFAULT_REASON, inferability_findings
from ..model import Rule, RuleDoc


def check(ctx):
    yield from inferability_findings(
        ctx, RULE.code, ("range", "pattern"),
        "`{api}` selects {entity} rows by a range or pattern on {attributes}: the set of rows is open-ended",
        "Select the rows by key (resolve them with a read before the transaction), or accept a reconnaissance "
        "step.")


RULE = Rule(
    code="TX203",
    name="range-or-pattern",
    summary="Statement selects rows by a range or a pattern",
    doc=RuleDoc(
        what="Finds statements inside transactions whose predicate is a range (`__gt`, `__lt`, `__range`, "
             "`isnull`, negation) or a pattern (`__contains`, `Like`).",
        why="Which rows such a predicate matches, including rows inserted concurrently (phantoms), is known "
            "only by running it; a deterministic database cannot lock them up front.",
        example="""\
@transaction.atomic
def expire(now):
    Coupon.objects.filter(expires__lt=now).update(active=False)""",
        use_instead="""\
def expire(now):
    pks = list(Coupon.objects.filter(expires__lt=now).values_list("pk", flat=True))
    with transaction.atomic():
        Coupon.objects.filter(pk__in=pks, expires__lt=now).update(active=False)""",
        example_typeorm="""\
await dataSource.transaction((manager) => manager.update(Coupon, { expires: LessThan(now) }, { active: false }));""",
        use_instead_typeorm="""\
const ids = (await repo.find({ where: { expires: LessThan(now) }, select: ["id"] })).map((c) => c.id);
await dataSource.transaction((manager) => manager.update(Coupon, { id: In(ids) }, { active: false }));""",
        fix="Resolve the matching keys before the transaction and select by key inside it.",
        default_reason=DEFAULT_REASON,
    ),
    check=check,
    enabled_by_default=False,
    precision="high",
    level="note",
    tags=("inferability", "deterministic-databases"),
)
