"""TX202 dependent-key."""

from __future__ import annotations

from ..inferability import DEFAULT_REASON, inferability_findings
from ..model import Rule, RuleDoc


def check(ctx):
    yield from inferability_findings(
        ctx, RULE.code, ("dependent",),
        "`{api}` selects {entity} rows by a key read earlier in the same transaction: its write set depends "
        "on a read",
        "Resolve the key before the transaction (reconnaissance) and pass it in, re-checking it inside.")


RULE = Rule(
    code="TX202",
    name="dependent-key",
    summary="Statement keyed by a value read earlier in the same transaction",
    doc=RuleDoc(
        what="Finds statements whose key (primary key or CDA) comes from the result of an earlier statement "
             "of the same transaction (`order = get(...); Customer.objects.get(pk=order.customer_id)`).",
        why="The transaction's read/write set is not known until the first read has run: a deterministic "
            "database must run a reconnaissance phase, and the transaction is non-strictly interactive.",
        example="""\
@transaction.atomic
def bill(order_id):
    order = Order.objects.get(pk=order_id)
    Customer.objects.filter(pk=order.customer_id).update(billed=True)""",
        use_instead="""\
def bill(order_id, customer_id):  # the caller knows both keys
    with transaction.atomic():
        Order.objects.filter(pk=order_id, customer_id=customer_id).update(billed=True)
        Customer.objects.filter(pk=customer_id).update(billed=True)""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  const order = await manager.findOneByOrFail(Order, { id });
  await manager.update(Customer, { id: order.customerId }, { billed: true });
});""",
        use_instead_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.update(Customer, { id: customerId }, { billed: true });
});""",
        fix="Pass the key in from outside the transaction, or resolve it with a reconnaissance read first.",
        default_reason=DEFAULT_REASON,
    ),
    check=check,
    enabled_by_default=False,
    precision="high",
    level="note",
    tags=("inferability", "deterministic-databases"),
)
