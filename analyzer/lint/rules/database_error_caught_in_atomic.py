"""TX303 database-error-caught-in-atomic."""

from __future__ import annotations

from .. import pysyntax
from ..model import Finding, Location, Rule, RuleDoc

DATABASE_ERRORS = {"IntegrityError", "DatabaseError", "OperationalError", "DataError", "ProgrammingError",
                   "InternalError"}


def _caught(clause) -> list:
    """The exception-type nodes of an except clause that name a database error."""
    out = []
    for child in clause.named_children:
        if child.type == "block":
            break
        names = [child] if child.type != "tuple" else child.named_children
        if child.type == "as_pattern":
            inner = child.named_children[0]
            names = inner.named_children if inner.type == "tuple" else [inner]
        out.extend(n for n in names if pysyntax.text(n).rsplit(".", 1)[-1] in DATABASE_ERRORS)
    return out


def _has_savepoint(body) -> bool:
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "with_statement" and pysyntax.opens_transaction(node):
            return True
        if node.type not in ("function_definition", "class_definition"):
            stack.extend(node.named_children)
    return False


def check(ctx):
    reached: dict[str, object] = {}
    for txn in ctx.transactions:
        for fs in txn.flat:
            for name in fs.step.get("via", []):
                reached.setdefault(name, txn)
    for path in ctx.target_files((".py",)):
        source = "\n".join(ctx.lines(path))
        if not any(name in source for name in DATABASE_ERRORS):
            continue
        tree = ctx.python_tree(path)
        module = pysyntax.module_name(path)
        for node in pysyntax.try_statements(tree):
            body = node.child_by_field_name("body")
            if body is None or _has_savepoint(body):
                continue
            blocks = pysyntax.transaction_blocks(node)
            function = pysyntax.enclosing_function(node, module)
            txn = reached.get(function)
            if txn is None and ctx.inside_transaction_span(path, node.start_point[0] + 1, function):
                txn = ctx.transaction_around(path, node.start_point[0] + 1)
            if not blocks and txn is None:
                continue
            for clause in node.named_children:
                if clause.type != "except_clause" or pysyntax.reraises(clause):
                    continue
                for caught in _caught(clause):
                    where = ctx.node_location(path, caught)
                    line, col = where.line, where.col
                    if blocks:
                        block = blocks[0]
                        boundary = Location(path, block.start_point[0] + 1,
                                            ctx.column(path, block.start_point[0] + 1), "transaction begins")
                    else:
                        boundary = ctx.boundary(txn)
                    yield Finding(
                        code=RULE.code, location=Location(path, line, col),
                        message=f"`{pysyntax.text(caught)}` caught inside a transaction without an inner "
                                "savepoint: the transaction is left broken (PostgreSQL rolls it back at commit, "
                                "later queries fail)",
                        function=function, boundary=boundary,
                        chain=(boundary, Location(path, line, col, "database error swallowed")),
                        fix="Wrap the statement that may fail in its own `with transaction.atomic():` inside the "
                            "`try`, so only the savepoint rolls back.")


RULE = Rule(
    code="TX303",
    name="database-error-caught-in-atomic",
    summary="Database error caught inside atomic without an inner savepoint",
    doc=RuleDoc(
        what="Finds `except IntegrityError` / `DatabaseError` / `OperationalError` ... that swallow the error "
             "(no `raise`) inside an `atomic` block or decorator, or in a function the scan reaches from a "
             "transaction, when the `try` body opens no inner `atomic()` savepoint.",
        why="After a failed statement the database transaction is aborted: PostgreSQL refuses every further "
            "query (`current transaction is aborted`), Django raises `TransactionManagementError`, and the "
            "outer commit silently becomes a rollback of everything done before.",
        example="""\
@transaction.atomic
def register(email):
    try:
        User.objects.create(email=email)
    except IntegrityError:
        pass
    Audit.objects.create(event="register")""",
        use_instead="""\
@transaction.atomic
def register(email):
    try:
        with transaction.atomic():
            User.objects.create(email=email)
    except IntegrityError:
        pass
    Audit.objects.create(event="register")""",
        fix="Put the statement that may fail inside its own `with transaction.atomic():` within the `try` "
            "(a savepoint), or let the error propagate out of the transaction.",
    ),
    check=check,
    frontends=("django",),
    level="error",
    tags=("hygiene", "error-handling"),
)
