"""TX110 lost-update."""

from __future__ import annotations

import re

from ..model import Finding, Location, Rule, RuleDoc

# Isolation levels under which the database itself rejects a concurrent read-modify-write.
_SAFE_ISOLATION = ("SERIALIZABLE", "REPEATABLE")


def _fix(ctx, write: dict, attributes: list[str]) -> str:
    entity = write.get("entity") or "Model"
    if ctx.frontend == "typeorm":
        return (f"Let the database compute the value: `manager.increment({entity}, {{ id }}, \"{attributes[0]}\", delta)` "
                "or an UPDATE with an expression, or read the row with `lock: { mode: \"pessimistic_write\" }`.")
    assignments = ", ".join(f'{a}=F("{a}") + ...' for a in attributes)
    return (f"Let the database compute the value: `{entity}.objects.filter(pk=...).update({assignments})`, "
            "or read the row with `select_for_update()` first.")


_STATEMENT_LINES = 6
_WINDOW = 40


def _same_attribute_arithmetic(ctx, read: dict, write: dict, attribute: str) -> bool:
    """The code between the read and the write computes the attribute from its own old value
    (`x.balance += n`, `x.balance = x.balance + n`, `balance=x.balance - n`, `{ stock: s.stock - 1 }`).

    The IR says the written value comes from the read, not from which of its columns; a new value
    assigned from other columns (a recomputed total, a token) is last-writer-wins, not a lost update.
    """
    lines = ctx.lines(write["file"])
    # From the read (when it is above, in the same file), at most _WINDOW lines above the write.
    first = write["line"] - _WINDOW
    if read["file"] == write["file"] and read["line"] <= write["line"]:
        first = max(read["line"], first)
    # The statement's own arguments (`update(id, {\n  n: x.n + 1 })`) may span a few lines below it.
    text = "\n".join(lines[max(first, 1) - 1:write["line"] + _STATEMENT_LINES])
    a = re.escape(attribute)
    # `x.a = x.a` (a refresh, as in `customer.addr = customer.addr`) computes nothing.
    patterns = (rf"\.{a}\s*[-+*/]=", rf"\.{a}\s*=(?!=)(?![ \t]*[\w.]+\.{a}[ \t]*;?[ \t]*$)[^\n;]*\.{a}\b",
                rf"(?<![.\w]){a}\s*[=:](?!=)[^\n,;]*\.{a}\b")
    return any(re.search(p, text, re.MULTILINE) for p in patterns)


def _serialized(ctx, entity: str, locked: set[str]) -> bool:
    """A lock taken earlier on the entity's rows or on a parent row (a relation of the entity)
    serializes the transactions that then read and write it."""
    parents = {r.get("target") for r in ctx.entities.get(entity, {}).get("relations", [])}
    return entity in locked or bool(parents & locked)


def check(ctx):
    for txn in ctx.linted_transactions:
        isolation = str(txn.record.get("options", {}).get("isolation", "")).upper()
        if any(level in isolation for level in _SAFE_ISOLATION):
            continue
        steps = {fs.id: fs.step for fs in txn.flat if fs.id}
        locked: set[str] = set()
        for fs in txn.flat:
            step = fs.step
            if fs.node != "statement":
                continue
            if step["kind"] == "lock" and step.get("entity"):
                locked.add(step["entity"])
                continue
            if step["kind"] != "write" or not step.get("entity") or _serialized(ctx, step["entity"], locked):
                continue
            entity = ctx.entities.get(step["entity"], {})
            fields = set(entity.get("fields") or ()) | {r.get("attribute") for r in entity.get("relations", [])}
            reads: dict[str, dict] = {}
            attributes = []
            for value in step.get("values", []):
                for source in value.get("sources", []):
                    read = steps.get(source.get("step")) if source.get("kind") == "result" else None
                    attribute = value.get("attribute")
                    if read and read.get("node") == "statement" and read["kind"] == "read" \
                            and read.get("entity") == step["entity"] and attribute \
                            and (not fields or attribute in fields) \
                            and _same_attribute_arithmetic(ctx, read, step, attribute):
                        reads[read["id"]] = read
                        if attribute not in attributes:
                            attributes.append(attribute)
            if not reads or not attributes:
                continue
            read = reads[min(reads, key=lambda i: int(i.lstrip("s") or 0))]
            finding = ctx.step_finding(
                RULE.code, txn, step,
                f"lost update: `{step['entity']}` is read (line {read['line']}) and written back with "
                f"{', '.join(attributes)} computed from the read, without a lock; a concurrent transaction's "
                "change is overwritten",
                _fix(ctx, step, attributes), label=f"writes {', '.join(attributes)} computed from the read")
            read_location = Location(read["file"], read["line"], ctx.step_column(read),
                                     f"reads {step['entity']} without a lock")
            chain = (*finding.chain[:-1], read_location, finding.chain[-1])
            yield Finding(**{**finding.__dict__, "chain": chain})


RULE = Rule(
    code="TX110",
    name="lost-update",
    summary="Read-modify-write of a row without a lock or a database expression (lost update)",
    doc=RuleDoc(
        what="Finds a write whose value is computed in the application from a plain read of the same entity "
             "in the same transaction, when the code computes a field from its own old value (`x.n += 1`, "
             "`x.n = x.n - k`, `{ n: x.n + k }`), no lock was taken before the read (`select_for_update()`, "
             "TypeORM `pessimistic_write`, on that row or a parent row) and the transaction does not run at "
             "REPEATABLE READ or SERIALIZABLE.",
        why="At READ COMMITTED (the default of PostgreSQL, MySQL's is REPEATABLE READ without this protection "
            "for such writes) two transactions can read the same balance, both add to it, and the second "
            "write overwrites the first: one update is lost, with no error. An `atomic` block does not "
            "prevent it.",
        example="""\
@transaction.atomic
def deposit(pk, amount):
    account = Account.objects.get(pk=pk)
    account.balance = account.balance + amount
    account.save()""",
        use_instead="""\
@transaction.atomic
def deposit(pk, amount):
    Account.objects.filter(pk=pk).update(balance=F("balance") + amount)""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  const account = await manager.findOneByOrFail(Account, { id });
  account.balance += amount;
  await manager.save(account);
});""",
        use_instead_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.increment(Account, { id }, "balance", amount);
});""",
        fix="Compute the new value in the database (`F()` with `update()`, TypeORM `increment`/`decrement` or "
            "an UPDATE expression), or lock the row when reading it (`select_for_update()`, "
            "`lock: { mode: \"pessimistic_write\" }`).",
    ),
    check=check,
    fix_kinds=("f-expression", "ts-increment"),
    precision="medium",
    tags=("interactivity", "concurrency", "lost-update"),
)
