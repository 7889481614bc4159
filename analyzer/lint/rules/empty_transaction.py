"""TX308 empty-transaction."""

from __future__ import annotations

from ..model import Finding, Rule, RuleDoc


def check(ctx):
    for txn in ctx.linted_transactions:
        if txn.record["steps"] or txn.incomplete:
            continue
        boundary = ctx.boundary(txn)
        yield Finding(code=RULE.code, location=boundary.__class__(boundary.path, boundary.line, boundary.col),
                      message=f"transaction in {txn.record['function']} runs no database statement",
                      function=txn.record["function"], boundary=boundary, chain=(boundary,),
                      fix="Remove the transaction, or move it to the code that does the database work.",
                      transaction=txn.id)


RULE = Rule(
    code="TX308",
    name="empty-transaction",
    summary="Transaction that runs no database statement",
    doc=RuleDoc(
        what="Finds transaction boundaries (`atomic`, `transaction(...)`, `@Transactional`) inside which the "
             "scan finds no statement, no external call and no call it could not follow.",
        why="An empty transaction costs a connection and a BEGIN/COMMIT round trip for nothing, and usually "
            "means the work it was meant to protect runs elsewhere, unprotected.",
        example="""\
@transaction.atomic
def refresh_title(title):
    return title.strip().title()""",
        use_instead="""\
def refresh_title(title):
    return title.strip().title()""",
        example_typeorm="""\
await dataSource.transaction(async () => {
  logger.info("nothing to do");
});""",
        use_instead_typeorm="""\
logger.info("nothing to do");""",
        fix="Remove the boundary, or wrap the code that issues the statements.",
        default_reason="Off by default: front ends do not yet report every call they drop as unresolved, so "
                       "a transaction whose work happens through calls txscan cannot follow can look empty.",
    ),
    check=check,
    enabled_by_default=False,
    precision="medium",
    level="note",
    tags=("hygiene",),
)
