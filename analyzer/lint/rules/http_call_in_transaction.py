"""TX101 http-call-in-transaction."""

from __future__ import annotations

from ..effects import after_commit_fix, effect_findings, short
from ..model import Rule, RuleDoc


def check(ctx):
    yield from effect_findings(
        ctx, RULE.code, lambda step: step["category"] == "http",
        lambda step: f"HTTP call `{short(step['callee'])}` inside a transaction: the transaction waits on the network "
                     "and the remote side sees changes that may roll back",
        after_commit_fix)


RULE = Rule(
    code="TX101",
    name="http-call-in-transaction",
    summary="HTTP or other network call inside a database transaction",
    doc=RuleDoc(
        what="Finds network calls (HTTP clients, payment and cloud SDKs, sockets) that run while a database "
             "transaction is open, directly or through the application's own functions; the finding names "
             "the transaction's boundary and the call chain from it. Transactions that neither write nor "
             "lock (read-only blocks) are not reported: they have nothing to roll back and hold no row locks.",
        why="The transaction holds its locks and its connection for as long as the remote side takes to "
            "answer, so a slow or hanging service stalls every writer of those rows. The remote side also "
            "acts on data that is not committed yet: if the transaction rolls back, the payment was taken "
            "or the webhook fired for an order that does not exist.",
        example="""\
@transaction.atomic
def checkout(order_id):
    order = Order.objects.select_for_update().get(pk=order_id)
    order.status = "paid"
    order.save()
    requests.post(WEBHOOK_URL, json={"order": order_id})""",
        use_instead="""\
@transaction.atomic
def checkout(order_id):
    order = Order.objects.select_for_update().get(pk=order_id)
    order.status = "paid"
    order.save()
    transaction.on_commit(lambda: requests.post(WEBHOOK_URL, json={"order": order_id}))""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.update(Order, { id }, { status: "paid" });
  await axios.post(WEBHOOK_URL, { order: id });
});""",
        use_instead_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.update(Order, { id }, { status: "paid" });
});
await axios.post(WEBHOOK_URL, { order: id });""",
        fix="Move the call after commit (`transaction.on_commit`, or after the transaction's promise "
            "resolves), or record the intent in an outbox table inside the transaction. When the call's "
            "answer decides what the transaction writes, make the call before the transaction starts.",
    ),
    check=check,
    fix_kinds=("on-commit",),
    tags=("interactivity", "external-call", "http"),
)
