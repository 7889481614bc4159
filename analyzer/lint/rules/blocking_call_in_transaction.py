"""TX106 blocking-call-in-transaction."""

from __future__ import annotations

from ..effects import effect_findings, short
from ..model import Rule, RuleDoc

_CATEGORIES = ("sleep", "subprocess", "input")


def _fix(step: dict, frontend: str) -> str:
    return (f"Run `{short(step['callee'])}` before the transaction starts or after it commits; retry loops "
            "should wrap the whole transaction, not sleep inside it.")


def check(ctx):
    yield from effect_findings(
        ctx, RULE.code, lambda step: step["category"] in _CATEGORIES,
        lambda step: f"{step['category']} call `{short(step['callee'])}` inside a transaction: its locks are "
                     "held while it waits",
        _fix)


RULE = Rule(
    code="TX106",
    name="blocking-call-in-transaction",
    summary="Sleep, subprocess or interactive input inside a database transaction",
    doc=RuleDoc(
        what="Finds `time.sleep`, `setTimeout` pauses, subprocesses and interactive input while a database "
             "transaction is open.",
        why="The transaction holds its row locks and a connection for the whole wait; under load, other "
            "requests queue behind it and the connection pool runs dry.",
        example="""\
@transaction.atomic
def retry_charge(pk):
    for attempt in range(3):
        if Payment.objects.filter(pk=pk, status="ok").exists():
            return
        time.sleep(2)""",
        use_instead="""\
def retry_charge(pk):
    for attempt in range(3):
        with transaction.atomic():
            if Payment.objects.filter(pk=pk, status="ok").exists():
                return
        time.sleep(2)""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.update(Job, { id }, { state: "waiting" });
  await new Promise((resolve) => setTimeout(resolve, 1000));
});""",
        use_instead_typeorm="""\
await dataSource.transaction((manager) => manager.update(Job, { id }, { state: "waiting" }));
await new Promise((resolve) => setTimeout(resolve, 1000));""",
        fix="Move the wait or the process out of the transaction; retry by re-running the whole transaction.",
    ),
    check=check,
    fix_kinds=("on-commit",),
    tags=("interactivity", "external-call"),
)
