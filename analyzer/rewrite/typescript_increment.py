"""ts-increment: a TypeORM read-modify-write of a counter becomes `increment`/`decrement`.

    const customer = await em.findOneByOrFail(Customer, { id: customerId });
    customer.loyaltyPoints += points;
    await em.save(customer);
becomes
    await em.increment(Customer, { id: customerId }, "loyaltyPoints", points);

The entity, the row's `where` and the amount are the code's own text. Refused when anything else
uses the loaded object, when a column is set rather than added to, or when the entity has columns
or listeners save() would maintain and increment() would not (@UpdateDateColumn, @VersionColumn,
@BeforeUpdate, @AfterUpdate).
"""

from __future__ import annotations

from . import typescript_syntax as syntax
from .edits import Edit, Refused, Rewrite

_FINDERS = {"findOneBy", "findOneByOrFail"}
_MAINTAINED = ("@UpdateDateColumn", "@VersionColumn", "@BeforeUpdate", "@AfterUpdate", "@BeforeInsert")


def rewrite(path: str, text: str, txn: dict, step: dict, project=None) -> Rewrite:
    if step.get("via") or step.get("api") != "save":
        raise Refused(f"the statement is {step.get('api')}(); only a save() in the transaction's body is rewritten")
    try:
        found = syntax.facts(path, text, step["line"])
    except syntax.Unavailable as exc:
        raise Refused(str(exc)) from exc
    statements = found["statements"]
    save_at = next((i for i, s in enumerate(statements) if s["kind"] == "call" and s["line"] == step["line"]
                    and s["call"]["method"] == "save"), None)
    if save_at is None:
        raise Refused(f"the save() on line {step['line']} is not a statement of its own")
    save = statements[save_at]["call"]
    if len(save["args"]) != 1 or not save["receiver"]:
        raise Refused("save() is not called with the loaded object alone")
    obj, manager = save["args"][0]["text"], save["receiver"]["text"]
    read_at, changes = _read_and_changes(statements, save_at, obj)
    read = statements[read_at]["call"]
    if read["receiver"] is None or read["receiver"]["text"] != manager or read["method"] not in _FINDERS \
            or len(read["args"]) != 2:
        raise Refused(f"{obj} is not loaded with {manager}.findOneBy(Entity, where)")
    entity, where = read["args"][0]["text"], read["args"][1]["text"]
    if any(obj in s["identifiers"] for i, s in enumerate(statements)
           if i not in {read_at, save_at, *(c[0] for c in changes)}):
        raise Refused(f"{obj} is used elsewhere; increment() would leave it stale")
    if project is not None:
        _check_entity(project.read, project.entities.get(entity), entity)
    indent = syntax.indentation(text, statements[save_at]["start"])
    calls = [f"await {manager}.{'increment' if op == '+' else 'decrement'}({entity}, {where}, \"{attribute}\", {amount});"
             for _i, attribute, op, amount in changes]
    edits = [Edit(path, statements[save_at]["start"], statements[save_at]["end"], f"\n{indent}".join(calls))]
    for index in [read_at, *(c[0] for c in changes)]:
        start, end = syntax.whole_lines(text, statements[index]["start"], statements[index]["end"])
        edits.append(Edit(path, start, end, ""))
    return Rewrite(
        kind="ts-increment",
        title=f"Update {entity}.{', '.join(c[1] for c in changes)} in the database: increment/decrement",
        edits=tuple(sorted(edits, key=lambda e: e.start)),
        verified=False,
        claim=f"the {entity} update no longer depends on a value read in the transaction",
        step_line=step["line"])


def _read_and_changes(statements: list[dict], save_at: int, obj: str):
    changes = []
    for i in range(save_at - 1, -1, -1):
        s = statements[i]
        if s["kind"] == "assignment" and s["object"] == obj:
            changes.append((i, s["attribute"], *_delta(s, obj)))
        elif s["kind"] == "declaration" and s["name"] == obj and s.get("call"):
            if not changes:
                raise Refused(f"no column of {obj} is changed before the save()")
            if len({c[1] for c in changes}) != len(changes):
                raise Refused(f"a column of {obj} is changed twice")
            return i, sorted(changes, key=lambda c: c[0])
        elif obj in s["identifiers"]:
            raise Refused(f"{obj} is used between its read and its save()")
    raise Refused(f"the read of {obj} is not in the same block as its save()")


def _delta(assignment: dict, obj: str) -> tuple[str, str]:
    """(operator, amount) of `obj.a += x`, `obj.a -= x`, `obj.a = obj.a + x`, `obj.a = obj.a - x`."""
    if assignment["op"] in ("+=", "-="):
        amount, mentions = assignment["value"]["text"], assignment["valueIdentifiers"]
        op = assignment["op"][0]
    else:
        total = assignment.get("sum")
        if not total or total["left"]["text"] != f"{obj}.{assignment['attribute']}":
            raise Refused(f"{obj}.{assignment['attribute']} is set, not added to; increment() cannot express it")
        amount, mentions, op = total["right"]["text"], total["rightIdentifiers"], total["operator"]
    if obj in mentions:
        raise Refused(f"the change of {obj}.{assignment['attribute']} reads {obj} itself")
    return op, amount if not any(c in amount for c in "+-?:,") else f"({amount})"


def _check_entity(read, entity: dict | None, name: str) -> None:
    if entity is None:
        raise Refused(f"{name} is not a known entity")
    try:
        lines = read(entity["file"]).splitlines()
    except OSError as exc:
        raise Refused(f"the entity {name} cannot be read") from exc
    # From the decorators above the class to the end of the file: the class body and its listeners.
    body = "\n".join(lines[max(entity["line"] - 3, 0):])
    maintained = [m for m in _MAINTAINED if m in body]
    if maintained:
        raise Refused(f"{name} has {', '.join(maintained)}, which save() maintains and increment() does not")
