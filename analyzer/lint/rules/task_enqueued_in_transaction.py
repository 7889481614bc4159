"""TX103 task-enqueued-in-transaction."""

from __future__ import annotations

from ..effects import effect_findings, short
from ..model import Rule, RuleDoc

_CELERY = (".delay", ".apply_async")


def _fix(step: dict, frontend: str) -> str:
    name = short(step["callee"])
    if frontend == "typeorm":
        return "Enqueue after the transaction's promise resolves, or write an outbox row inside the transaction."
    if step["callee"].endswith(_CELERY):
        task = name.rsplit(".", 1)[0]
        return (f"Use `{task}.delay_on_commit(...)` (Celery >= 5.4) or "
                f"`transaction.on_commit(lambda: {name}(...))`.")
    return f"Enqueue after commit: `transaction.on_commit(lambda: {name}(...))`."


def check(ctx):
    yield from effect_findings(
        ctx, RULE.code, lambda step: step["category"] == "queue",
        lambda step: f"task enqueued inside a transaction (`{short(step['callee'])}`): the worker can run "
                     "before the commit and read rows that are not there yet",
        _fix)


RULE = Rule(
    code="TX103",
    name="task-enqueued-in-transaction",
    summary="Background task enqueued inside a database transaction (.delay(), apply_async(), queue.add())",
    doc=RuleDoc(
        what="Finds Celery `.delay()` / `.apply_async()`, `send_task`, RQ and other queue clients (BullMQ, SQS "
             "...) called while a database transaction is open.",
        why="The message reaches the broker at once, but the rows the task needs are committed only later. A "
            "fast worker reads the old rows (or none: `DoesNotExist`), and if the transaction rolls back the "
            "task runs for something that never happened.",
        example="""\
@transaction.atomic
def place(order_id):
    Order.objects.filter(pk=order_id).update(status="placed")
    send_receipt.delay(order_id)""",
        use_instead="""\
@transaction.atomic
def place(order_id):
    Order.objects.filter(pk=order_id).update(status="placed")
    send_receipt.delay_on_commit(order_id)  # or transaction.on_commit(lambda: send_receipt.delay(order_id))""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.update(Order, { id }, { status: "placed" });
  await receiptQueue.add("receipt", { id });
});""",
        use_instead_typeorm="""\
await dataSource.transaction((manager) => manager.update(Order, { id }, { status: "placed" }));
await receiptQueue.add("receipt", { id });""",
        fix="`delay_on_commit` (Celery 5.4+) or `transaction.on_commit(lambda: task.delay(...))`; in TypeORM, "
            "enqueue after the transaction resolves. If the task must be enqueued atomically with the rows, "
            "write an outbox row in the transaction instead.",
    ),
    check=check,
    fix_kinds=("on-commit",),
    tags=("interactivity", "external-call", "queue"),
)
