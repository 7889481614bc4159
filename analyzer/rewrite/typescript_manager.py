"""ts-manager: a TypeORM statement that escapes its transaction (an `escaped-manager` diagnostic:
a global repository, an injected repository, `dataSource.manager`, an ActiveRecord static) moves
onto the transaction callback's manager.

    await this.dataSource.transaction(async (em) => {
      await this.products.increment({ id }, "stock", 1);        // Repository<Product>
becomes
      await em.getRepository(Product).increment({ id }, "stock", 1);

Refused when the statement is not written inside the callback itself (a helper called from it
would need the manager passed in), when the receiver's entity is not known, or when a nested
function hides the manager's name.
"""

from __future__ import annotations

import re

from . import typescript_syntax as syntax
from .edits import Edit, Refused, Rewrite

# ActiveRecord statics that EntityManager also has, taking the entity class first.
_MANAGER_METHODS = {"find", "findBy", "findOne", "findOneBy", "findOneOrFail", "findOneByOrFail", "findAndCount",
                    "findAndCountBy", "count", "countBy", "exists", "existsBy", "insert", "update", "upsert",
                    "delete", "softDelete", "restore", "increment", "decrement", "save", "remove", "query"}
_DIAGNOSTIC = re.compile(r"^(\w+) on `(.+)` runs outside the transaction")


def rewrite(path: str, text: str, txn: dict, diagnostic: dict, project=None) -> Rewrite:
    match = _DIAGNOSTIC.match(diagnostic["message"])
    if not match:
        raise Refused("the escaping statement is not described precisely enough to move")
    method, receiver_text = match.groups()
    try:
        found = syntax.facts(path, text, diagnostic["line"])
    except syntax.Unavailable as exc:
        raise Refused(str(exc)) from exc
    call = next((c for c in found["calls"] if c["method"] == method and c["receiver"]
                 and c["receiver"]["text"] == receiver_text), None)
    if call is None:
        raise Refused(f"the call {receiver_text}.{method}(...) on line {diagnostic['line']} was not found")
    manager = _manager(found["functions"], txn)
    shape = call["receiver"]["shape"]
    entities = project.entities if project else {}
    if shape["kind"] == "call" and shape["name"] == "getRepository" and len(shape["args"]) == 1:
        edit = Edit(path, call["receiver"]["start"], call["receiver"]["end"], f"{manager}.getRepository({shape['args'][0]})")
    elif (shape["kind"] == "call" and shape["name"] == "getManager") or receiver_text.endswith(".manager"):
        edit = Edit(path, call["receiver"]["start"], call["receiver"]["end"], manager)
    elif shape["kind"] == "this-property" and (m := re.fullmatch(r"Repository<(\w+)>", shape.get("type") or "")):
        entity = m.group(1)
        if entity not in found["topLevelNames"]:
            raise Refused(f"{entity} is not imported in {path}")
        edit = Edit(path, call["receiver"]["start"], call["receiver"]["end"], f"{manager}.getRepository({entity})")
    elif shape["kind"] == "identifier" and shape["name"] in entities and method in _MANAGER_METHODS:
        args = ", ".join([shape["name"], *(a["text"] for a in call["args"])])
        edit = Edit(path, call["start"], call["end"], f"{manager}.{method}({args})")
    else:
        raise Refused(f"the entity behind {receiver_text} is not known; pass the transaction's manager by hand")
    return Rewrite(
        kind="ts-manager",
        title=f"Run {method} on the transaction's manager ({manager})",
        edits=(edit,),
        verified=False,
        claim=f"{method} on line {diagnostic['line']} runs inside the transaction",
        step_line=diagnostic["line"])


def _manager(functions: list[dict], txn: dict) -> str:
    """The manager parameter of the transaction's callback enclosing the statement."""
    for index, function in enumerate(functions):
        owner = function.get("argumentOf")
        if owner and owner["line"] == txn["line"] and function["params"]:
            name = function["params"][0]
            if not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
                break
            if any(name in inner["params"] for inner in functions[:index]):
                raise Refused(f"a nested function hides the manager's name {name}")
            return name
    raise Refused("the statement is not written in the transaction's callback; pass its manager to the helper")
