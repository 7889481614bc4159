"""The one-line code changes scripts/benchmark.py makes before a warm scan and each lint.

A change must make txscan analyse again what it touches: a new statement in the function that
holds a given line, never a comment. A comment is trivia to both warm caches (ts-plugin reuses a
scan whole when only comments and positions changed), so an edit made of one measures the
cheapest path, not a developer's edit.

The statement goes after the innermost statement that holds the line, at that statement's
indentation; when the line is in a compound statement's or a function's header (a decorator, a
`with transaction.atomic():` line, `async method() {`), after the first statement of its body.
Python: `_benchmark_edit = 1`; TypeScript: `void 0;`. Where no statement holds the line (a class
attribute, a file that does not parse), the statement goes at the end of the file, at the top
level.
"""

from __future__ import annotations

import ast
import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PYTHON_STATEMENT = "_benchmark_edit = 1"
TYPESCRIPT_STATEMENT = "void 0;"

# ts.SyntaxKind names are looked up by the script: their numbers change between releases
_TYPESCRIPT_ANCHOR = r"""
const ts = require(process.argv[1]);
const fs = require("fs");
const file = process.argv[2], line = Number(process.argv[3]);
const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
const span = (n) => [lineOf(n.getStart(sf, true)), lineOf(n.getEnd())];
const inStatementList = (n) => n.parent && Array.isArray(n.parent.statements) && n.parent.statements.includes(n);
const blockBodied = (n) => ts.isFunctionLike(n) && n.body && ts.isBlock(n.body);
let innermost;
(function visit(n) {
  const [start, end] = span(n);
  if (start > line || end < line) return;
  if ((inStatementList(n) && !ts.isSourceFile(n)) || blockBodied(n)) innermost = n;
  ts.forEachChild(n, visit);
})(sf);
// the block a header line opens (a decorated method, `if (...) {`)
function blockOf(n) {
  if (blockBodied(n)) return n.body;
  let block;
  ts.forEachChild(n, (c) => { if (!block && ts.isBlock(c)) block = c; });
  return block;
}
let anchor = innermost;
if (innermost) {
  const block = blockOf(innermost);
  const first = block && block.statements[0];
  // a function holds the line but none of its statements does: after its first statement
  if (!inStatementList(innermost) || (first && line < lineOf(first.getStart(sf)))) anchor = first;
}
if (!anchor || !inStatementList(anchor)) console.log("null");
else console.log(JSON.stringify([lineOf(anchor.getEnd()), lineOf(anchor.getStart(sf))]));
"""


def typescript_module() -> str:
    """The typescript package scripts/setup.sh installed."""
    for candidate in (REPO / "node_modules" / "typescript", REPO / "ts-plugin" / "node_modules" / "typescript",
                      REPO / "analyzer" / "typeorm" / "_plugin" / "node_modules" / "typescript"):
        if candidate.exists():
            return str(candidate)
    raise SystemExit("benchmark: the typescript module is not installed (run scripts/setup.sh)")


def insert_statement(path: Path, line: int, typescript_module: str | None = None) -> int:
    """Insert the benchmark's statement into `path` in the function holding `line` (module
    docstring); return the inserted line's number. Every other byte stays as it was, line endings
    included (a file with CRLF endings rewritten with LF ones would be a change of every line)."""
    text = path.read_bytes().decode("utf-8")
    lines = text.splitlines(keepends=True)
    ending = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"  # the file's own
    if path.suffix == ".py":
        anchor = _python_anchor(text, line)
        statement = PYTHON_STATEMENT
    else:
        if typescript_module is None:
            raise ValueError("a TypeScript file needs the typescript module to find its statements")
        anchor = _typescript_anchor(path, line, typescript_module)
        statement = TYPESCRIPT_STATEMENT
    if anchor is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += ending
        lines.append(statement + ending)
        at = len(lines)
    else:
        end, start = anchor
        first = lines[start - 1]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        lines.insert(end, f"{indent}{statement}{ending}")
        at = end + 1
    path.write_bytes("".join(lines).encode("utf-8"))
    return at


def _python_anchor(text: str, line: int) -> tuple[int, int] | None:
    """(last line, first line) of the statement to insert after."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    innermost = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if start <= line <= node.end_lineno and (innermost is None or _inside(node, innermost)):
            innermost = node
    if innermost is None:
        return None
    body = getattr(innermost, "body", None)
    anchor = innermost
    if isinstance(body, list) and body and line < body[0].lineno:
        anchor = body[0]
    return anchor.end_lineno, anchor.lineno


def _inside(node: ast.stmt, other: ast.stmt) -> bool:
    return (node.lineno, -node.end_lineno) >= (other.lineno, -other.end_lineno) and node is not other


def _typescript_anchor(path: Path, line: int, typescript_module: str) -> tuple[int, int] | None:
    out = subprocess.run(["node", "-e", _TYPESCRIPT_ANCHOR, typescript_module, str(path), str(line)],
                         capture_output=True, text=True, check=True).stdout
    found = json.loads(out)
    return tuple(found) if found else None
