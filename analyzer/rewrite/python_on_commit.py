"""on-commit: an external effect (e-mail, HTTP, `.delay()`/`.apply_async()`) written in a Django
transaction's body moves into `transaction.on_commit(lambda: ...)`, so it runs after commit.

Refused (the caller says why, in prose) where the move would change what the program does: the
call's result is used; it runs in a loop or under `try` (the lambda would see the loop variable's
last value; the handler would no longer see its exceptions); it sits in a nested `atomic` block,
a savepoint whose rollback would silently drop the callback; or a name it reads is rebound later.
"""

from __future__ import annotations

import libcst as cst

from . import python_syntax as syntax
from .edits import Refused, Rewrite, diff_edits, diff_replaced_lines, text_lines

NOT_MOVABLE = {"sleep", "input"}  # waiting or asking: nothing to defer


def rewrite(path: str, text: str, txn: dict, effect: dict, project=None, whole: bool = False) -> Rewrite:
    short = effect["callee"].rsplit(".", 2)
    name = ".".join(short[-2:]) if short[-1] in ("delay", "apply_async", "send") else short[-1]
    if effect["category"] in NOT_MOVABLE:
        raise Refused(f"{name} ({effect['category']}) is not work that can wait for the commit")
    if effect.get("via"):
        raise Refused(f"{name} runs in {effect['via'][-1]}, called from the transaction; "
                      "deferring it there affects every caller")
    located = syntax.locate(text, effect["line"], effect["callee"], imports="transaction", whole=whole)
    if not located:
        raise Refused(f"the call to {name} on line {effect['line']} was not found")
    if effect["category"] == "storage" and effect["callee"].endswith(".save") and not _saves_no_row(located.call):
        # FieldFile.save(name, content) also saves the model row unless save=False: deferring it
        # would move that database write out of the transaction.
        raise Refused(f"{name} also saves its row (no save=False); deferring it would move that write "
                      "out of the transaction")
    statement = located.statement
    if not (len(statement.body) == 1 and isinstance(statement.body[0], cst.Expr)
            and statement.body[0].value is located.call):
        raise Refused(f"the result of {name} is used where it is called")
    wrappers = syntax.AtomicWrappers(located, text, project.wrappers if project else frozenset())
    _check_surroundings(located, txn, name, wrappers)
    function = syntax.enclosing_function(located)
    if function is not None:
        captured = syntax.names_in(located.call)
        rebound = syntax.rebound_after(function, captured, effect["line"], located.lines)
        if rebound:
            raise Refused(f"{', '.join(sorted(rebound))} is assigned again after the call; "
                          "a deferred call would see the later value")
    module = located.module
    local = syntax.transaction_import(module) if located.span is None else located.outline.transaction
    # (with a statement alone, locate made sure the name does not occur when it is not imported)
    if local is None and located.span is None and "transaction" in syntax.names_in(module):
        raise Refused("the name `transaction` means something else in this module")
    deferred = cst.Call(
        func=cst.Attribute(cst.Name(local or "transaction"), cst.Name("on_commit")),
        args=[cst.Arg(cst.Lambda(params=cst.Parameters(), body=located.call))])
    new_statement = statement.with_changes(body=[statement.body[0].with_changes(value=deferred)])
    replaced = _replaced_lines(text, module, statement, new_statement, located.lines.get(statement)) if local else None
    if replaced is not None:
        edits = diff_replaced_lines(path, text, *replaced)
    else:
        new_module = module.deep_replace(statement, new_statement)
        if local is not None:
            new_text = located.text_with(text, new_module)
        elif located.span is None:
            new_text = syntax.add_import(new_module, "from django.db import transaction\n").code
        else:
            new_text = syntax.with_import(located, located.text_with(text, new_module),
                                          "from django.db import transaction\n")
            if new_text is None:
                return rewrite(path, text, txn, effect, project, whole=True)
        edits = diff_edits(path, text, new_text)
    return Rewrite(
        kind="on-commit",
        title=f"Run {name} after commit: {local or 'transaction'}.on_commit(lambda: ...)",
        edits=edits,
        verified=False,
        claim=f"{effect['callee']} ({effect['category']}) no longer runs inside the transaction",
        step_line=effect["line"])


def _replaced_lines(text: str, module: cst.Module, statement, new_statement,
                    line: int | None) -> tuple[int, int, str] | None:
    """(first, last, replacement): `text` with `statement` (a simple statement line) replaced by
    `new_statement` is its lines first..last-1 (0-based) replaced by `replacement`, found without
    rebuilding and regenerating the whole module (that cost grew with module size times the
    number of candidates). The statement's own code must be found verbatim at its line, under
    its indentation; otherwise None, and the caller regenerates the module as before."""
    if line is None:
        return None
    bare = statement.with_changes(leading_lines=())
    old_code = module.code_for_node(bare)
    lines, offsets = text_lines(text)  # (the file's lines, split once for all its rewrites)
    first = line - 1
    last = first + old_code.count("\n")
    if first < 0 or last > len(lines) or not old_code.endswith("\n"):
        return None
    segment = text[offsets[first]:offsets[last]]
    indent = segment[:len(segment) - len(segment.lstrip(" \t"))]
    if segment != indent + old_code:
        return None
    return first, last, indent + module.code_for_node(new_statement.with_changes(leading_lines=()))


def _saves_no_row(call: cst.Call) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == "save"
               and isinstance(arg.value, cst.Name) and arg.value.value == "False" for arg in call.args)


def _check_surroundings(located: syntax.Located, txn: dict, name: str, wrappers) -> None:
    for ancestor in located.ancestors:
        if isinstance(ancestor, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            return
        if isinstance(ancestor, cst.For | cst.While):
            raise Refused(f"{name} runs in a loop: a deferred call per iteration would see the loop "
                          "variables' last values")
        if isinstance(ancestor, cst.Try | cst.TryStar):
            raise Refused(f"{name} runs under try: its errors would no longer reach the handler")
        if (isinstance(ancestor, cst.With) and any(syntax.is_atomic(item.item, wrappers) for item in ancestor.items)
                and located.lines[ancestor] != txn["line"]):
            raise Refused(f"{name} runs in a nested atomic block (a savepoint): if it rolls back, "
                              "the on_commit callback is dropped")

