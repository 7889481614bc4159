"""Concrete rewrite suggestions (docs/VERDICTS.md, "Suggestions").

The decision of *what* to suggest is language-neutral; the code is rendered for the front
end the transaction came from (Django or TypeORM), with the names found in the IR.
"""

from __future__ import annotations

import re
import textwrap

from .flatten import FlatStep, predicate_terms


def _value_expr(sources: list[dict]) -> str:
    for source in sources:
        if source["kind"] in ("input", "constant") and source.get("name"):
            return source["name"]
    return "..."


def _django_kwargs(statement: dict) -> str:
    parts = []
    for term in predicate_terms(statement.get("predicate")):
        lookup = term.get("lookup") or term["attribute"]
        parts.append(f"{lookup}={_value_expr(term['sources'])}")
    return ", ".join(parts)


def _typeorm_where(statement: dict) -> str:
    parts = []
    for term in predicate_terms(statement.get("predicate")):
        parts.append(f"{term['attribute']}: {_value_expr(term['sources'])}")
    return "{ " + ", ".join(parts) + " }"


def reconnaissance(statement: dict, frontend: str) -> dict:
    entity = statement.get("entity") or "Model"
    var = re.sub(r"(?<!^)(?=[A-Z])", "_", entity).lower() + "_pks"
    if frontend == "typeorm":
        where = _typeorm_where(statement)
        code = f"""\
            // Reconnaissance, before the transaction: resolve the predicate to primary keys.
            const {var} = (await dataSource.getRepository({entity}).find({{ select: {{ id: true }}, where: {where} }})).map((r) => r.id);
            await dataSource.transaction(async (manager) => {{
              // Touch exactly those keys (now inferable) and re-check the original predicate;
              // if the rows moved in between, throw and retry from the reconnaissance (OLLP).
              const rows = await manager.find({entity}, {{ where: {{ id: In({var}), ...{where} }}, lock: {{ mode: "pessimistic_write" }} }});
              if (rows.length !== {var}.length) throw new RetryTransaction();
              // ... original statements, using rows ...
            }});"""
    else:
        kwargs = _django_kwargs(statement)
        code = f"""\
            # Reconnaissance, before the transaction: resolve the predicate to primary keys.
            {var} = list({entity}.objects.filter({kwargs}).values_list("pk", flat=True))
            with transaction.atomic():
                # Touch exactly those keys (now inferable) and re-check the original predicate;
                # if the rows moved in between, raise and retry from the reconnaissance (OLLP).
                rows = list({entity}.objects.select_for_update().filter(pk__in={var}, {kwargs}))
                if len(rows) != len({var}):
                    raise RetryTransaction()
                # ... original statements, using rows ..."""
    return {
        "kind": "reconnaissance",
        "statement": statement["id"],
        "file": statement["file"],
        "line": statement["line"],
        "makes_inferable": True,
        "makes_one_shot": False,
        "explanation": f"{entity} rows are selected by attributes other than the CDA; "
        "resolve them to keys with a cheap read before the transaction.",
        "code": textwrap.dedent(code),
    }


def _f_expression(text: str, attribute: str) -> str:
    """`account.balance - amount` -> `F("balance") - amount`."""
    return re.sub(rf"\b[A-Za-z_][A-Za-z0-9_]*\.{re.escape(attribute)}\b", f'F("{attribute}")', text)


def one_shot(flat: list[FlatStep], reasons: list[dict], frontend: str) -> list[dict]:
    """A conversion per non-strict pattern, for the statements the pattern names."""
    by_id = {fs.id: fs.step for fs in flat if fs.id}
    suggestions = []
    seen: set[tuple[str, str]] = set()
    for reason in reasons:
        category, target = reason["category"], by_id.get(reason.get("statement"))
        source = by_id.get(reason.get("depends_on"))
        if target is None or (category, target["id"]) in seen:
            continue
        seen.add((category, target["id"]))
        entity = target.get("entity") or "Model"
        source_entity = (source or {}).get("entity") or "Model"
        # The rows the rewritten statement touches are the target's own; only a dependent key is
        # resolved through the source's predicate.
        target_where = _django_kwargs(target) or "pk=pk"
        source_where = _django_kwargs(source) if source and source.get("predicate") else "..."
        values = [v for v in target.get("values", []) if v.get("attribute")]
        if frontend == "typeorm":
            code = _typeorm_one_shot(category, entity, target, source)
        elif category in ("read-modify-write", "loop-over-results") and target["kind"] == "insert":
            fields = ", ".join(v["attribute"] for v in values) or "..."
            code = f"""\
                # The inserted values ({fields}) come from a read: compute them in the database in
                # the same statement (INSERT ... SELECT, e.g. with Subquery()/F() in a raw or
                # stored-procedure insert), so the application does not wait for the read.
                {entity}.objects.create(...)  # values: Subquery({source_entity}.objects.filter({source_where}).values(...))"""
        elif category in ("read-modify-write", "loop-over-results"):
            assignments = ", ".join(
                f"{v['attribute']}={_f_expression(v.get('text') or '...', v['attribute'])}" for v in values
            ) or "field=F(\"field\") + delta"
            code = f"""\
                # One statement, evaluated by the database: no read round trip.
                {entity}.objects.filter({target_where}).update({assignments})"""
        elif category == "conditional":
            code = f"""\
                # Fold the condition into the WHERE clause and branch on the row count.
                changed = {entity}.objects.filter({target_where}, ...).update(...)
                if not changed:
                    ...  # the branch taken when the condition did not hold"""
        elif category == "generated-key":
            code = f"""\
                # Generate the key in the application so later statements do not wait for it.
                new_id = uuid.uuid4()  # with a UUID primary key, or a sequence reserved up front
                {source_entity}.objects.create(pk=new_id, ...)
                {entity}.objects.create({source_entity.lower()}_id=new_id, ...)"""
        else:  # dependent-key
            code = f"""\
                # Resolve the key before the transaction (reconnaissance), then pass it in.
                key = {source_entity}.objects.filter({source_where}).values_list(...).get()
                with transaction.atomic():
                    {entity}.objects.filter(pk=key).update(...)  # re-check and retry if it moved"""
        suggestions.append({
            "kind": "one-shot",
            "pattern": category,
            "statement": target["id"],
            "file": target["file"],
            "line": target["line"],
            "makes_inferable": False,
            "makes_one_shot": True,
            "explanation": _EXPLAIN[category],
            "code": textwrap.dedent(code),
        })
    return suggestions


def _typeorm_one_shot(category: str, entity: str, target: dict, source: dict | None) -> str:
    where = _typeorm_where(source if source and source.get("predicate") else target)
    if category in ("read-modify-write", "loop-over-results"):
        return (f"// One statement, evaluated by the database.\n"
                f"await manager.increment({entity}, {where}, \"field\", delta);\n"
                f"// or: manager.createQueryBuilder().update({entity}).set({{ field: () => \"field + :d\" }}).where(...).execute()")
    if category == "conditional":
        return (f"// Fold the condition into the WHERE clause and branch on affected rows.\n"
                f"const res = await manager.update({entity}, {where}, {{ /* changes */ }});\n"
                f"if (!res.affected) {{ /* the branch taken when the condition did not hold */ }}")
    if category == "generated-key":
        return ("// Generate the key in the application (uuid) so later inserts need not wait for it.\n"
                "const id = randomUUID();\n"
                f"await manager.insert(Parent, {{ id, /* ... */ }});\nawait manager.insert({entity}, {{ parentId: id }});")
    return ("// Resolve the key before the transaction (reconnaissance), then pass it in and re-check.\n"
            f"await manager.update({entity}, {{ id: key }}, {{ /* ... */ }});")


_EXPLAIN = {
    "read-modify-write": "The value written is computed from a value read in the same transaction; "
    "let the database compute it (F() expression / increment) in one statement.",
    "loop-over-results": "Rows fetched in the transaction are updated one by one; a single "
    "set-based update does the same without the round trips.",
    "conditional": "A statement runs only if an earlier read found something; fold the condition "
    "into a conditional update and check the affected row count.",
    "generated-key": "A later statement uses the key generated by an earlier insert; generating "
    "keys in the application removes the dependency.",
    "dependent-key": "A key comes from an earlier read; resolving it before the transaction "
    "(reconnaissance) makes the transaction one-shot.",
}


def on_commit(effects: list[dict], used_by_statements: set[str], frontend: str) -> list[dict]:
    suggestions = []
    for effect in effects:
        if effect["id"] in used_by_statements:
            continue
        if frontend == "typeorm":
            code = (f"// Run {effect['callee']} after the transaction commits:\n"
                    "const result = await dataSource.transaction(async (manager) => { /* statements */ });\n"
                    f"await {effect['callee']}(/* ... */);  // or write an outbox row inside the transaction")
        else:
            code = (f"# Run {effect['callee']} only after the transaction commits:\n"
                    f"transaction.on_commit(lambda: {effect['callee']}(...))")
        suggestions.append({
            "kind": "on-commit",
            "statement": effect["id"],
            "file": effect["file"],
            "line": effect["line"],
            "makes_inferable": False,
            "makes_one_shot": False,
            "explanation": f"{effect['category']} call inside the transaction; no later statement uses its "
            "result, so it can run after commit (or through an outbox table).",
            "code": code,
        })
    return suggestions
