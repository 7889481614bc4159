"""TX301 select-for-update-outside-transaction."""

from __future__ import annotations

from .. import pysyntax
from ..model import Finding, Location, Rule, RuleDoc

# Queryset methods that run the query there and then (the lock is taken, or Django raises).
EVALUATING = {"get", "first", "last", "latest", "earliest", "exists", "count", "in_bulk", "aggregate",
              "get_or_create", "update_or_create", "contains"}
_CONSUMERS = {"list", "tuple", "set", "len", "bool", "next", "sorted"}


def evaluated_chain(call) -> tuple[object, bool]:
    """The whole method chain around a `select_for_update()` call, and whether this code evaluates it."""
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
    if last in EVALUATING:
        return node, True
    if parent is not None and parent.type == "for_statement" and parent.child_by_field_name("right") == node:
        return node, True
    if parent is not None and parent.type == "argument_list" and parent.parent is not None:
        callee = parent.parent.child_by_field_name("function")
        if callee is not None and pysyntax.text(callee) in _CONSUMERS:
            return node, True
    return node, False


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
            if pysyntax.transaction_blocks(call):
                continue
            chain, evaluated = evaluated_chain(call)
            if not evaluated:
                continue
            first, last = chain.start_point[0] + 1, chain.end_point[0] + 1
            if any((path, line) in in_transaction for line in range(first, last + 1)):
                continue
            function = pysyntax.enclosing_function(call, module)
            if function in reached or function.rsplit(".", 1)[-1] in unresolved:
                continue
            attribute = call.child_by_field_name("function").child_by_field_name("attribute")
            line, col = pysyntax.position(attribute, ctx.line_text(path, attribute.start_point[0] + 1))
            yield Finding(
                code=RULE.code, location=Location(path, line, col),
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
             "`.first()`, iteration, `list()`) when neither an enclosing `atomic` block or decorator nor any "
             "transaction the scan found reaches that code.",
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
