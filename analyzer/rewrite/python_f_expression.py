"""f-expression: a Django read-modify-write of one row becomes one UPDATE computed by the database.

    account = Account.objects.select_for_update().get(pk=account_id)
    account.balance += amount
    account.save(update_fields=["balance"])
becomes
    account = Account.objects.select_for_update().get(pk=account_id)
    Account.objects.select_for_update().filter(pk=account_id).update(balance=F("balance") + amount)
    account.refresh_from_db(fields=["balance"])

The row is selected by the `get()`'s own arguments and the value by the assignment's own
expression, both as written (never rebuilt from the IR). The read stays when the object is used
elsewhere, and the object is refreshed when it is used afterwards. Refused where `update()` would
do less than `save()`: other statements touch the object in between, `save()` writes other columns
(no or wider `update_fields`), or the model overrides `save()` or has `auto_now` fields.
"""

from __future__ import annotations

import re

import libcst as cst

from . import python_f_refusals
from . import python_syntax as syntax
from .edits import Refused, Rewrite, diff_edits


def rewrite(path: str, text: str, txn: dict, step: dict, project=None, whole: bool = False) -> Rewrite:
    if step.get("via") or step.get("api") != "save" or step.get("kind") != "write":
        where = f" in {step['via'][-1]}" if step.get("via") else ""
        raise Refused(f"the statement is {step.get('api')}(){where}; only a save() in the transaction's "
                      "body is rewritten automatically")
    early = None if whole else python_f_refusals.early_refusal(text, step["line"])
    if early is not None:  # (told from Python's own parser, before libcst parses the statement)
        raise Refused(early)
    located = syntax.locate(text, step["line"], "save", imports="F", whole=whole)
    if not located or not isinstance(located.call.func, cst.Attribute) \
            or not isinstance(located.call.func.value, cst.Name):
        raise Refused(f"the save() on line {step['line']} was not found")
    obj = located.call.func.value.value
    suite = located.parents.get(located.statement)
    if located.span is not None and suite is located.module:  # a module-level save(): its block is the module
        return rewrite(path, text, txn, step, project, whole=True)
    if not isinstance(suite, cst.IndentedBlock | cst.Module):
        raise Refused("the save() is not a statement of its own")
    body = list(suite.body)
    save_at = body.index(located.statement)
    get_at, assign_at, assigns = _read_and_assignments(body, save_at, obj)
    read = body[get_at].body[0].value
    attributes = [a for a, _ in assigns]
    _check_update_fields(located.call, attributes)
    if project is not None:
        _check_model(project.read, project.entities, step.get("entity"))
    values = [cst.Arg(keyword=cst.Name(a), value=v, equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))) for a, v in assigns]
    queryset = cst.Call(func=cst.Attribute(read.func.value, cst.Name("filter")), args=read.args)
    update = cst.Call(func=cst.Attribute(queryset, cst.Name("update")), args=values)
    others = [s for i, s in enumerate(body) if i not in {get_at, save_at, *assign_at}]
    used_elsewhere = any(obj in syntax.names_in(s) for s in others)
    used_after = any(obj in syntax.names_in(s) for s in body[save_at + 1:])
    replacement = [located.statement.with_changes(body=[cst.Expr(update)])]
    if used_after:
        fields = ", ".join(f'"{a}"' for a in attributes)
        replacement.append(cst.parse_statement(f"{obj}.refresh_from_db(fields=[{fields}])\n"))
    new_body = []
    for i, statement in enumerate(body):
        if i == save_at:
            new_body.extend(replacement)
        elif i == get_at and not used_elsewhere:
            continue
        elif i not in assign_at:
            new_body.append(statement)
    original = located.module
    rewritten = original.deep_replace(suite, suite.with_changes(body=new_body))
    if located.span is None:
        new_text = _import_f(original, rewritten).code
    else:
        new_text = _import_f_alone(located, located.text_with(text, rewritten))
        if new_text is None:
            return rewrite(path, text, txn, step, project, whole=True)
    entity_name = step.get("entity") or "the row"
    return Rewrite(
        kind="f-expression",
        title=f"Update {entity_name}.{', '.join(attributes)} in the database: update() with F()",
        edits=diff_edits(path, text, new_text),
        verified=False,
        claim=f"the {entity_name} update no longer depends on a value read in the transaction",
        step_line=step["line"])


def _assignment(statement) -> tuple[str, str, cst.BaseExpression, str | None] | None:
    """(object, attribute, value, operator) of `obj.attr = value` / `obj.attr += value`."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, value, op = small.targets[0].target, small.value, None
    elif isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign | cst.SubtractAssign):
        target, value, op = small.target, small.value, "+" if isinstance(small.operator, cst.AddAssign) else "-"
    else:
        return None
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
        return target.value.value, target.attr.value, value, op
    return None


def _read_and_assignments(body: list, save_at: int, obj: str):
    """The `obj = ....get(...)` before the save and the attribute assignments between them."""
    assigns: dict[str, cst.BaseExpression] = {}
    indexes = set()
    for i in range(save_at - 1, -1, -1):
        statement = body[i]
        assignment = _assignment(statement)
        if assignment is not None and assignment[0] == obj:
            _, attribute, value, op = assignment
            if attribute in assigns:
                raise Refused(f"{obj}.{attribute} is assigned twice before the save()")
            assigns[attribute] = _to_f(value, obj, attribute, op)
            indexes.add(i)
            continue
        if _is_get_into(statement, obj):
            if not assigns:
                raise Refused(f"no attribute of {obj} is assigned before the save()")
            return i, indexes, sorted(assigns.items())
        if obj in syntax.names_in(statement):
            raise Refused(python_f_refusals.USED_BETWEEN.format(obj=obj))
    raise Refused(f"the read of {obj} is not in the same block as its save()")


def _is_get_into(statement, obj: str) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == obj
            and isinstance(small.value, cst.Call) and isinstance(small.value.func, cst.Attribute)
            and small.value.func.attr.value == "get" and ".objects" in "." + syntax.dotted(small.value.func.value))


def _to_f(value: cst.BaseExpression, obj: str, attribute: str, op: str | None) -> cst.BaseExpression:
    f_call = cst.Call(func=cst.Name("F"), args=[cst.Arg(cst.SimpleString(f'"{attribute}"'))])

    class ToF(cst.CSTTransformer):
        def leave_Attribute(self, original, updated):
            if isinstance(updated.value, cst.Name) and updated.value.value == obj:
                if updated.attr.value != attribute:
                    raise Refused(python_f_refusals.READS_OTHER.format(attribute=attribute, obj=obj,
                                                                       other=updated.attr.value))
                return f_call
            return updated

    new_value = value.visit(ToF())
    if obj in syntax.names_in(new_value):
        raise Refused(f"the new {attribute} uses {obj} itself")
    if op is None:
        return new_value
    operator = cst.Add() if op == "+" else cst.Subtract()
    right = new_value if not isinstance(new_value, cst.BinaryOperation) else cst.BinaryOperation(
        new_value.left, new_value.operator, new_value.right,
        lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(f_call, operator, right)


def _check_update_fields(save: cst.Call, attributes: list[str]) -> None:
    for arg in save.args:
        if arg.keyword is None or arg.keyword.value != "update_fields":
            raise Refused("save() is called with arguments update() does not take")
        if not isinstance(arg.value, cst.List | cst.Tuple) or not all(
                isinstance(e.value, cst.SimpleString) for e in arg.value.elements):
            raise Refused("save()'s update_fields is not a literal list")
        named = {e.value.evaluated_value for e in arg.value.elements}
        if named != set(attributes):
            extra = ", ".join(sorted(named - set(attributes))) or "fewer columns"
            raise Refused(f"save() also writes {extra}, which update() would leave unchanged")
        return
    raise Refused(python_f_refusals.NO_UPDATE_FIELDS)


def _check_model(read, entities: dict, name: str | None) -> None:
    """update() skips an overridden save() and auto_now fields: look for them in the model's class
    and the entity classes it names as bases."""
    pending, seen = [name], set()
    while pending:
        entity = entities.get(pending.pop())
        if entity is None or entity["name"] in seen:
            continue
        seen.add(entity["name"])
        try:
            lines = read(entity["file"]).splitlines()[entity["line"] - 1:]
        except OSError as exc:
            raise Refused(f"the model {entity['name']} cannot be read") from exc
        if not lines:
            continue
        bases = set(re.findall(r"\w+", lines[0].partition("(")[2]))
        pending.extend(sorted(bases & set(entities)))
        for offset, line in enumerate(lines):
            if offset and line.strip() and not line[0].isspace() and not line.startswith((")", "#")):
                break
            if "def save(" in line or "auto_now" in line:
                raise Refused(f"{entity['name']} overrides save() or has auto_now fields, which update() skips")


def _import_f_alone(located: syntax.Located, text: str) -> str | None:
    """_import_f where `located` is a statement alone: the module's imports come from its outline
    (locate parsed the whole module when F is not imported but occurs in it)."""
    imported = located.outline.f_import
    if imported is None:
        return syntax.with_import(located, text, "from django.db.models import F\n")
    if imported[0] in ("django.db.models", "django.db.models.expressions"):
        return text
    raise Refused("the name F means something else in this module")


def _import_f(original: cst.Module, module: cst.Module) -> cst.Module:
    """`module` importing F from django.db.models, unless `original` already did."""
    for statement in original.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) and any(
                        a.name.value == "F" and a.asname is None for a in small.names):
                    if small.module is not None and syntax.dotted(small.module) in ("django.db.models",
                                                                                    "django.db.models.expressions"):
                        return module
                    raise Refused("the name F means something else in this module")
    if "F" in syntax.names_in(original):
        raise Refused("the name F means something else in this module")
    return syntax.add_import(module, "from django.db.models import F\n")
