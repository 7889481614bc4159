"""TX301 select-for-update-outside-transaction."""

from __future__ import annotations

from .. import pysyntax
from ..model import Finding, Rule, RuleDoc

# Queryset methods that run the query there and then (the lock is taken, or Django raises).
EVALUATING = {"get", "first", "last", "latest", "earliest", "exists", "count", "in_bulk", "aggregate",
              "get_or_create", "update_or_create", "contains", "iterator"}
# Methods that run a statement but not the SELECT ... FOR UPDATE (Django raises only for that).
EXECUTING = {"update", "delete", "explain"}
_CONSUMERS = {"list", "tuple", "set", "len", "bool", "next", "sorted"}


def evaluated_chain(call, methods=frozenset(EVALUATING)) -> tuple[object, bool]:
    """The whole method chain around a `select_for_update()` call, and whether this code runs it
    (ends in one of `methods`, is iterated, or is consumed by `list()` and the like)."""
    node = call
    last = "select_for_update"
    while node.parent is not None:
        parent = node.parent
        if parent.type == "attribute" and parent.child_by_field_name("object") == node:
            last = pysyntax.text(parent.child_by_field_name("attribute"))
            node = parent
        elif parent.type == "call" and parent.child_by_field_name("function") == node:
            node = parent
        else:
            break
    parent = node.parent
    if last in methods:
        return node, True
    if parent is not None and parent.type == "for_statement" and parent.child_by_field_name("right") == node:
        return node, True
    if parent is not None and parent.type == "argument_list" and parent.parent is not None:
        callee = parent.parent.child_by_field_name("function")
        if callee is not None and pysyntax.text(callee) in _CONSUMERS:
            return node, True
    return node, False


def _may_run_in_a_caller_transaction(ctx, call, name: str) -> bool:
    """A function named anywhere else in the project may be called inside a caller's transaction the
    scan did not follow (deeper than its depth, through a decorator or a signal); a function that
    checks `in_atomic_block` itself guards the lock. Only code nobody calls by name is reported."""
    function = call.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is not None and "in_atomic_block" in pysyntax.text(function):
        return True
    return ctx.python_identifiers[name] > 1


def check(ctx):
    files = [p for p in ctx.target_files((".py",)) if "select_for_update" in "\n".join(ctx.lines(p))]
    if not files:
        return
    in_transaction = {(s["file"], s["line"]) for t in ctx.transactions for s in t.verdict["statements"]}
    reached = {t.record["function"] for t in ctx.transactions}
    reached |= {name for t in ctx.transactions for fs in t.flat for name in fs.step.get("via", [])}
    unresolved = {fs.step.get("callee", "").rsplit(".", 1)[-1] for t in ctx.transactions for fs in t.flat
                  if fs.node == "unresolved"}
    for path in files:
        tree = ctx.python_tree(path)
        module = pysyntax.module_name(path)
        for call in pysyntax.method_calls(tree, "select_for_update"):
            function = pysyntax.enclosing_function(call, module)
            if pysyntax.transaction_blocks(call) or ctx.inside_transaction_span(path, call.start_point[0] + 1, function):
                continue
            chain, evaluated = evaluated_chain(call)
            if not evaluated:
                continue
            first, last = chain.start_point[0] + 1, chain.end_point[0] + 1
            if any((path, line) in in_transaction for line in range(first, last + 1)):
                continue
            name = function.rsplit(".", 1)[-1]
            if function in reached or name in unresolved or _may_run_in_a_caller_transaction(ctx, call, name):
                continue
            yield Finding(
                code=RULE.code, location=ctx.node_location(path, pysyntax.method_name(call)),
                message="`select_for_update()` is evaluated outside any transaction: Django raises "
                        "TransactionManagementError in autocommit mode, and no lock outlives the query",
                function=function,
                fix="Wrap the read and the writes that depend on it in `with transaction.atomic():`.")


RULE = Rule(
    code="TX301",
    name="select-for-update-outside-transaction",
    summary="select_for_update() evaluated outside a transaction",
    doc=RuleDoc(
        what="Finds querysets with `select_for_update()` that the same function evaluates (`.get()`, "
             "`.first()`, iteration, `list()`) when neither an enclosing `atomic` block, decorator or project "
             "wrapper nor any transaction the scan found reaches that code, and nothing else in the project "
             "names the function (so no caller can have opened a transaction around it).",
        why="Outside a transaction Django raises `TransactionManagementError` when the queryset is evaluated; "
            "where autocommit is emulated the lock is released as soon as the SELECT ends, so it protects "
            "nothing.",
        example="""\
def reserve(pk):
    product = Product.objects.select_for_update().get(pk=pk)
    product.stock -= 1
    product.save()""",
        use_instead="""\
def reserve(pk):
    with transaction.atomic():
        product = Product.objects.select_for_update().get(pk=pk)
        product.stock -= 1
        product.save()""",
        fix="Open the transaction around the locking read and the writes that depend on it. Functions whose "
            "callers open the transaction are recognised when the scan reaches them from that transaction.",
    ),
    check=check,
    frontends=("django",),
    level="error",
    tags=("hygiene", "locking"),
)
