"""TX302 select-for-update-not-evaluated."""

from __future__ import annotations

from .. import pysyntax
from ..model import Finding, Rule, RuleDoc
from .select_for_update_outside_transaction import EVALUATING, EXECUTING, evaluated_chain


def check(ctx):
    for path in ctx.target_files((".py",)):
        if "select_for_update" not in "\n".join(ctx.lines(path)):
            continue
        tree = ctx.python_tree(path)
        module = pysyntax.module_name(path)
        for call in pysyntax.method_calls(tree, "select_for_update"):
            chain, evaluated = evaluated_chain(call, frozenset(EVALUATING | EXECUTING))
            if evaluated or chain.parent is None or chain.parent.type != "expression_statement":
                continue
            yield Finding(
                code=RULE.code, location=ctx.node_location(path, pysyntax.method_name(call)),
                message="`select_for_update()` queryset is built and thrown away: querysets are lazy, so no row "
                        "is locked",
                function=pysyntax.enclosing_function(call, module),
                fix="Evaluate it (`list(...)`, `.get()`, iterate it), or keep the queryset and read the rows "
                    "through it.")


RULE = Rule(
    code="TX302",
    name="select-for-update-not-evaluated",
    summary="select_for_update() queryset that is never evaluated, so nothing is locked",
    doc=RuleDoc(
        what="Finds statements that build a `select_for_update()` queryset and discard it "
             "(`Account.objects.select_for_update().filter(pk=pk)` on a line of its own).",
        why="Django querysets are lazy: the SELECT ... FOR UPDATE runs only when the queryset is evaluated. "
            "A discarded queryset never runs, so the rows the code means to lock are not locked and "
            "concurrent transactions proceed.",
        example="""\
with transaction.atomic():
    Account.objects.select_for_update().filter(pk=pk)
    account = Account.objects.get(pk=pk)
    account.balance -= amount
    account.save()""",
        use_instead="""\
with transaction.atomic():
    account = Account.objects.select_for_update().get(pk=pk)
    account.balance -= amount
    account.save()""",
        fix="Evaluate the locking queryset (`.get()`, `list()`, iteration) and use the rows it returns.",
    ),
    check=check,
    frontends=("django",),
    precision="very-high",
    level="error",
    tags=("hygiene", "locking"),
)
