"""TX307 query-runner-not-released."""

from __future__ import annotations

import re

from .. import tstext
from ..model import Finding, Location, Rule, RuleDoc

_DECLARATION = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::\s*[\w.<>]+\s*)?=\s*[^;]*?\bcreateQueryRunner\s*\(")


def _escapes(block: str, name: str) -> bool:
    """The runner is handed to someone else (returned, passed, stored), who may release it."""
    n = re.escape(name)
    return bool(re.search(rf"\breturn\s+{n}\b|[(,]\s*{n}\s*[,)]|=\s*{n}\s*[;,\n]|:\s*{n}\s*[,}}]|\b{n}\s*[,}}]", block))


def _inside(offset: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in ranges)


def check(ctx):
    for path in ctx.target_files((".ts", ".tsx", ".mts", ".cts")):
        source = "\n".join(ctx.lines(path))
        if "createQueryRunner" not in source:
            continue
        masked = tstext.mask(source)
        for match in _DECLARATION.finditer(masked):
            name = match.group(1)
            _start, end = tstext.enclosing_block(masked, match.start())
            block = masked[match.end():end]
            base = match.end()
            n = re.escape(name)
            if _escapes(block, name):
                continue
            releases = [base + m.start() for m in re.finditer(rf"\b{n}\s*\.\s*release\s*\(", block)]
            begin = re.search(rf"\b{n}\s*\.\s*startTransaction\s*\(", block)
            problems = []
            if not releases:
                problems.append(("never released: the connection leaks from the pool",
                                 match.start(1)))
            elif begin and not _inside(releases[0], tstext.block_ranges(masked[:end], "finally")) \
                    and not any(_inside(r, tstext.block_ranges(masked[:end], "catch")) for r in releases):
                problems.append(("released only when no error is thrown (not in `finally`): a failing statement "
                                 "leaks the connection", releases[0]))
            if begin and not re.search(rf"\b{n}\s*\.\s*rollbackTransaction\s*\(", block):
                problems.append(("starts a transaction but never rolls it back: an error leaves it open on the "
                                 "pooled connection", base + begin.start()))
            if begin and not re.search(rf"\b{n}\s*\.\s*commitTransaction\s*\(", block):
                problems.append(("starts a transaction but never commits it", base + begin.start()))
            for text, offset in problems:
                line, col = tstext.line_col(source, offset)
                yield Finding(code=RULE.code, location=Location(path, line, col),
                              message=f"query runner `{name}` {text}",
                              function="", fix="try { ...; await qr.commitTransaction(); } catch (e) { await "
                                               "qr.rollbackTransaction(); throw e; } finally { await qr.release(); }")


RULE = Rule(
    code="TX307",
    name="query-runner-not-released",
    summary="TypeORM QueryRunner that is not released, or whose transaction is not rolled back on error",
    doc=RuleDoc(
        what="Finds `createQueryRunner()` results that the function never releases (and does not hand to "
             "someone else), releases outside `finally`, or on which it starts a transaction that no path "
             "rolls back or commits.",
        why="A query runner holds a pooled connection until `release()`: a path that skips it (an exception "
            "before the release) leaks the connection, and a transaction neither committed nor rolled back "
            "stays open with its locks until the connection dies.",
        example="""\
# (TypeORM only)""",
        use_instead="""\
# (TypeORM only)""",
        example_typeorm="""\
const qr = dataSource.createQueryRunner();
await qr.startTransaction();
await qr.manager.save(order);
await qr.commitTransaction();
await qr.release();""",
        use_instead_typeorm="""\
const qr = dataSource.createQueryRunner();
await qr.startTransaction();
try {
  await qr.manager.save(order);
  await qr.commitTransaction();
} catch (error) {
  await qr.rollbackTransaction();
  throw error;
} finally {
  await qr.release();
}""",
        fix="The try / catch (rollback, rethrow) / finally (release) shape, or `dataSource.transaction(...)`, "
            "which does it for you.",
    ),
    check=check,
    frontends=("typeorm",),
    precision="medium",
    level="warning",
    tags=("hygiene", "typeorm"),
)
