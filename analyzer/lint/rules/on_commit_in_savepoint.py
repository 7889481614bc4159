"""TX304 on-commit-in-savepoint."""

from __future__ import annotations

from .. import pysyntax
from ..model import Finding, Location, Rule, RuleDoc


def _swallowing_try(savepoint, outer):
    """The `try` between a savepoint and its outer transaction whose handler catches an error
    escaping the savepoint without re-raising it: the savepoint rolls back, the outer goes on."""
    child, current = savepoint, savepoint.parent
    while current is not None and current != outer:
        if current.type == "try_statement" and child == current.child_by_field_name("body"):
            if any(c.type == "except_clause" and not pysyntax.reraises(c) for c in current.named_children):
                return current
        child, current = current, current.parent
    return None


def check(ctx):
    for path in ctx.target_files((".py",)):
        if "on_commit" not in "\n".join(ctx.lines(path)):
            continue
        tree = ctx.python_tree(path)
        module = pysyntax.module_name(path)
        for call in pysyntax.method_calls(tree, "on_commit"):
            blocks = pysyntax.transaction_blocks(call)
            if len(blocks) < 2:
                continue   # not inside a savepoint of a transaction opened in the same function
            savepoint, outer = blocks[0], blocks[-1]
            handler = _swallowing_try(savepoint, outer)
            if handler is None:
                continue
            where = ctx.node_location(path, pysyntax.method_name(call))
            line = outer.start_point[0] + 1
            boundary = Location(path, line, ctx.column(path, line), "transaction begins")
            savepoint_line = savepoint.start_point[0] + 1
            yield Finding(
                code=RULE.code, location=where,
                message=f"on_commit callback registered in the savepoint opened on line {savepoint_line}, whose "
                        f"errors are caught on line {handler.start_point[0] + 1}: if it rolls back, the callback "
                        "is dropped while the transaction still commits",
                function=pysyntax.enclosing_function(call, module), boundary=boundary,
                chain=(boundary, Location(path, savepoint_line, ctx.column(path, savepoint_line), "savepoint"),
                       Location(path, where.line, where.col, "callback registered in the savepoint")),
                fix="Register the callback outside the inner `atomic()` block (after it succeeded), or let "
                    "the error propagate.")


RULE = Rule(
    code="TX304",
    name="on-commit-in-savepoint",
    summary="on_commit registered inside a savepoint that may roll back while the transaction commits",
    doc=RuleDoc(
        what="Finds `transaction.on_commit(...)` called inside an inner `atomic()` block (a savepoint) of a "
             "transaction, where a `try` around that block catches its errors without re-raising them.",
        why="Django discards the callbacks registered in a savepoint when the savepoint rolls back. Here the "
            "error is caught and the outer transaction goes on and commits, so the callback (a notification, a "
            "cache invalidation, a task) silently never runs for a transaction that did commit.",
        example="""\
@transaction.atomic
def import_rows(rows):
    for row in rows:
        try:
            with transaction.atomic():
                item = Item.objects.create(**row)
                transaction.on_commit(lambda: index.delay(item.pk))
        except IntegrityError:
            log.warning("duplicate %s", row)""",
        use_instead="""\
@transaction.atomic
def import_rows(rows):
    for row in rows:
        try:
            with transaction.atomic():
                item = Item.objects.create(**row)
        except IntegrityError:
            log.warning("duplicate %s", row)
            continue
        transaction.on_commit(lambda: index.delay(item.pk))""",
        fix="Register the callback after the savepoint succeeded (outside its `with` block), or let the error "
            "propagate so the whole transaction rolls back. No automatic fix: where the callback belongs is a "
            "decision about the program.",
        default_reason="Off by default: dropping the callback together with the savepoint's work is sometimes "
                       "what the code means (nothing was written, nothing to announce); turn it on where "
                       "callbacks must run whenever the transaction commits.",
    ),
    check=check,
    frontends=("django",),
    enabled_by_default=False,
    level="warning",
    tags=("hygiene", "on-commit"),
)
