"""Findings for external effects that run inside a transaction (the TX10x rules share this)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .context import LintContext
from .model import Finding


def effect_findings(ctx: LintContext, code: str, accepts: Callable[[dict], bool],
                    message: Callable[[dict], str], fix: Callable[[dict, str], str]) -> Iterable[Finding]:
    """One finding per effect step the predicate accepts, in every transaction that runs it.

    A transaction seen completely that only reads (a read-only block, e.g. pinned to a replica) has
    nothing to roll back and holds no row locks: an effect inside it is not reported.
    """
    for txn in ctx.linted_transactions:
        if _read_only(txn):
            continue
        for fs in txn.flat:
            step = fs.step
            if fs.node == "effect" and accepts(step) and not _deferred_on_the_way(ctx, step):
                yield ctx.step_finding(code, txn, step, message(step), fix(step, ctx.frontend),
                                       label=f"{step['category']} call {step['callee']}")


def _deferred_on_the_way(ctx: LintContext, step: dict) -> bool:
    """A function on the call chain registers `on_commit` itself (a helper such as
    `call_event(fn, ...)` that defers `fn` when a transaction is open): the effect may run after
    commit, and the finding would not be certain."""
    return any("on_commit(" in ctx.function_source(name) for name in step.get("via", [])[:-1])


def _read_only(txn) -> bool:
    statements = [fs.step["kind"] for fs in txn.flat if fs.node == "statement"]
    return bool(statements) and not txn.incomplete and not any(kind in _CHANGES for kind in statements)


_CHANGES = ("write", "insert", "delete", "lock", "raw")


def short(callee: str) -> str:
    """`orders.tasks.send_receipt.delay` -> `send_receipt.delay` (the name as usually written)."""
    parts = callee.split(".")
    return ".".join(parts[-2:]) if len(parts) > 1 else callee


def after_commit_fix(step: dict, frontend: str) -> str:
    name = short(step["callee"])
    if frontend == "typeorm":
        return (f"Call {name} after the transaction's promise resolves (after commit), or write an outbox row "
                "inside the transaction and send it from a worker.")
    return (f"Run it after commit: `transaction.on_commit(lambda: {name}(...))`, or write an outbox row inside "
            "the transaction and send it from a worker.")
