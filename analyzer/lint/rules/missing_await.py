"""TX306 missing-await."""

from __future__ import annotations

from ..diagnostics import diagnostic_findings
from ..model import Rule, RuleDoc


def check(ctx):
    yield from diagnostic_findings(
        ctx, RULE.code, "missing-await",
        "`await` the statement; replace `forEach(async ...)` with `for (const x of xs) await ...` or "
        "`await Promise.all(xs.map(async ...))`.")


RULE = Rule(
    code="TX306",
    name="missing-await",
    summary="Statement not awaited inside a TypeORM transaction (missing await, forEach(async ...))",
    doc=RuleDoc(
        what="Finds promises of database work that the transaction callback does not await: a statement "
             "without `await`, `forEach(async ...)`, a nested call returning a promise that is dropped.",
        why="The callback returns, TypeORM commits and releases the connection, and the un-awaited statement "
            "then runs after commit on a released query runner (QueryRunnerAlreadyReleasedError) or outside "
            "the transaction; its failure no longer rolls anything back.",
        example="""\
# (TypeORM only)""",
        use_instead="""\
# (TypeORM only)""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  lines.forEach(async (line) => {
    await manager.insert(OrderLine, line);
  });
});""",
        use_instead_typeorm="""\
await dataSource.transaction(async (manager) => {
  for (const line of lines) {
    await manager.insert(OrderLine, line);
  }
});""",
        fix="Await every statement, and iterate with `for ... of` (or `await Promise.all(...)`).",
    ),
    check=check,
    frontends=("typeorm",),
    level="error",
    tags=("hygiene", "typeorm", "async"),
)
