"""What rules see: the scan of the whole project, its IR, and the source text of its files.

Rules about transactions read the scan's verdicts and IR (never syntax); hygiene rules that need
code outside transactions ask for a file's tree-sitter tree, parsed once, on demand.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cached_property
from pathlib import Path

from ..core.completeness import NO_STATEMENT
from ..core.flatten import FlatStep, flatten
from ..scan import ScanResult
from .model import Finding, Location
from .project import is_target

BOUNDARY_LABEL = {
    "atomic-decorator": "@transaction.atomic", "atomic-context": "with transaction.atomic()",
    "method-decorator": "@method_decorator(atomic)", "atomic-requests": "ATOMIC_REQUESTS view",
    "manual": "set_autocommit(False)", "transaction-callback": "transaction(async manager => ...)",
    "query-runner": "queryRunner.startTransaction()", "transaction-decorator": "@Transaction()",
    "transactional-decorator": "@Transactional()",
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


class Transaction:
    def __init__(self, record: dict, verdict: dict) -> None:
        self.record = record      # the IR record (steps with structure and call chains)
        self.verdict = verdict    # the core's verdict in the configured CDA mode

    @cached_property
    def flat(self) -> list[FlatStep]:
        return flatten(self.record["steps"])

    def runs_in(self, targets: list[str]) -> bool:
        """Whether its boundary or any of its steps is in the linted paths."""
        if is_target(self.record["file"], targets):
            return True
        files: set[str] = set()
        _step_files(self.record["steps"], files)
        return any(is_target(path, targets) for path in files)

    @property
    def id(self) -> str:
        return self.record["id"]

    @property
    def incomplete(self) -> bool:
        """The front end met calls it could not follow: absence of a problem is not proven.

        A transaction the core marks incomplete only because it found no statement in it is not
        blind anywhere: that is what empty-transaction (TX308) reports."""
        if any(site.get("reason") != NO_STATEMENT for site in self.verdict.get("incomplete") or []):
            return True
        return any(fs.node == "unresolved" for fs in self.flat)


class LintContext:
    def __init__(self, root: Path, result: ScanResult, cda_mode: str, targets: list[str]):
        self.root = root
        self.result = result
        self.frontend = result.frontend
        self.analysis = result.analyses[cda_mode]
        self.targets = targets
        self._lines: dict[str, list[str]] = {}
        self._definitions: dict[str, tuple[str, int] | None] = {}
        self._trees: dict[str, object] = {}

    # ------------------------------------------------------------------ scan facts

    @cached_property
    def transactions(self) -> list[Transaction]:
        records = {r["id"]: r for r in self.result.records if r["type"] == "transaction"}
        out = []
        for verdict in self.analysis["transactions"]:
            if verdict["boundary"] == "autocommit":
                continue  # rules are about explicit transactions; an autocommit statement is one-shot
            record = records.get(verdict["id"])
            if record is not None:
                out.append(Transaction(record, verdict))
        return out

    @cached_property
    def linted_transactions(self) -> list[Transaction]:
        """The transactions whose boundary or some step is in the linted paths, in the same order:
        a finding located at a boundary or a step (the rules about one transaction at a time) can
        come from no other. Rules that weigh all transactions at once (what is reached, what
        is unresolved anywhere) read `transactions`."""
        return [t for t in self.transactions if t.runs_in(self.targets)]

    @cached_property
    def diagnostics(self) -> list[dict]:
        return self.analysis["diagnostics"]

    @cached_property
    def entities(self) -> dict[str, dict]:
        return {e["name"]: e for e in self.analysis["entities"]}

    def transaction_around(self, path: str, line: int) -> Transaction | None:
        """The innermost transaction whose boundary span (as the scan found it, project wrappers
        included) holds the line."""
        spans = [t for t in self.transactions if t.record["file"] == path
                 and t.record["line"] <= line <= t.record.get("end_line", t.record["line"])]
        return max(spans, key=lambda t: t.record["line"]) if spans else None

    def inside_transaction_span(self, path: str, line: int, function: str) -> bool:
        """Whether the line runs inside a transaction the scan found around it in the same function
        (a nested `def`, such as an on_commit callback, runs later, outside it)."""
        txn = self.transaction_around(path, line)
        return txn is not None and txn.record["function"] == function

    @cached_property
    def python_identifiers(self) -> Counter:
        """How often each identifier occurs in the project's Python files (a cheap "is it used" test)."""
        counts: Counter = Counter()
        for f in self.result.files:
            if f["path"].endswith(".py"):
                counts.update(_WORD.findall("\n".join(self.lines(f["path"]))))
        return counts

    def target_files(self, suffixes: tuple[str, ...]) -> list[str]:
        """Analysed source files (relative paths) inside the linted paths."""
        return sorted(f["path"] for f in self.result.files
                      if f["path"].endswith(suffixes) and is_target(f["path"], self.targets)
                      and f.get("status", "ok") == "ok")

    # ------------------------------------------------------------------ source text

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                self._lines[path] = (self.root / path).read_text("utf-8", "replace").splitlines()
            except OSError:
                self._lines[path] = []
        return self._lines[path]

    def line_text(self, path: str, line: int) -> str:
        lines = self.lines(path)
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def column(self, path: str, line: int, needle: str = "") -> int:
        """1-based column of `needle` on the line (the call's name), else of its first code character.

        The IR locates steps by line; the column is found in the text so that editors and
        code scanning can point at the call itself.
        """
        text = self.line_text(path, line)
        if needle:
            match = re.search(rf"(?<![A-Za-z0-9_$]){re.escape(needle)}(?![A-Za-z0-9_$])", text)
            if match:
                return match.start() + 1
        return len(text) - len(text.lstrip()) + 1 if text.strip() else 1

    def node_location(self, path: str, node) -> Location:
        """Where a tree-sitter node starts, with the column in characters."""
        from .pysyntax import position
        line, col = position(node, self.line_text(path, node.start_point[0] + 1))
        return Location(path, line, col)

    def python_tree(self, path: str):
        """The tree-sitter tree of a Python file (parsed once)."""
        if path not in self._trees:
            from .pysyntax import parse
            self._trees[path] = parse((self.root / path).read_bytes())
        return self._trees[path]

    # ------------------------------------------------------------------ findings about transactions

    def boundary(self, txn: Transaction) -> Location:
        record = txn.record
        label = f"transaction begins: {BOUNDARY_LABEL.get(record['boundary'], record['boundary'])} in {record['function']}"
        return Location(record["file"], record["line"], self.column(record["file"], record["line"]), label)

    def chain(self, txn: Transaction, step: dict, label: str) -> tuple[Location, ...]:
        """Boundary, then each function of the step's call chain (where it is defined), then the step."""
        out = [self.boundary(txn)]
        for qualname in step.get("via", []):
            where = self.definition(qualname)
            if where is not None:
                out.append(Location(where[0], where[1], self.column(where[0], where[1], qualname.rsplit(".", 1)[-1]),
                                    f"calls {qualname}"))
        out.append(Location(step["file"], step["line"], self.step_column(step), label))
        return tuple(out)

    def step_column(self, step: dict) -> int:
        name = step.get("callee") or step.get("api") or ""
        parts = [p for p in _IDENT.findall(name.split("(")[0])]
        # `filter.update` is written `.filter(...)...update(...)`: point at the first ORM call;
        # `orders.tasks.send.delay` at `delay`, `requests.post` at `post`.
        needle = parts[0] if step.get("node") == "statement" and parts else (parts[-1] if parts else "")
        return self.column(step["file"], step["line"], needle)

    def step_finding(self, code: str, txn: Transaction, step: dict, message: str, fix: str = "",
                     label: str = "") -> Finding:
        via = step.get("via") or []
        return Finding(
            code=code,
            location=Location(step["file"], step["line"], self.step_column(step)),
            message=message,
            function=via[-1] if via else txn.record["function"],
            boundary=self.boundary(txn),
            chain=self.chain(txn, step, label or message),
            fix=fix,
            transaction=txn.id,
        )

    def definition(self, qualname: str) -> tuple[str, int] | None:
        """Where an application function is defined: (path, line of its `def` or declaration).

        The IR names functions by module path and name (`shop.services.reserve`,
        `src.cart.cart.service.CartService.addLine`); the longest module prefix that is a
        scanned file holds it, and its name is found at the start of a line there.
        """
        if qualname in self._definitions:
            return self._definitions[qualname]
        found = None
        parts = qualname.split(".")
        for split in range(len(parts) - 1, 0, -1):
            path = self._modules.get(".".join(parts[:split]))
            if path is not None:
                found = self._search(path, parts[-1])
                break
        self._definitions[qualname] = found
        return found

    def function_source(self, qualname: str) -> str:
        """The text of a Python function (its `def` line to the first line indented no deeper)."""
        where = self.definition(qualname)
        if where is None or not where[0].endswith(".py"):
            return ""
        lines = self.lines(where[0])
        start = where[1] - 1
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        return "\n".join(lines[start:end])

    @cached_property
    def _modules(self) -> dict[str, str]:
        out = {}
        for f in self.result.files:
            stem = re.sub(r"\.(py|tsx?|mts|cts)$", "", f["path"])
            module = stem.replace("/", ".")
            out[module.removesuffix(".__init__")] = f["path"]
        return out

    def _search(self, path: str, name: str) -> tuple[str, int] | None:
        pattern = re.compile(
            rf"^\s*(?:async\s+)?def\s+{re.escape(name)}\s*[(\[]"
            rf"|^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*{re.escape(name)}\s*[(<]"
            rf"|^\s*(?:(?:public|private|protected|static|async|override|readonly)\s+)*{re.escape(name)}\s*(?:[(<]|=\s*(?:async\s*)?\()")
        for number, text in enumerate(self.lines(path), 1):
            if pattern.match(text):
                return (path, number)
        return None


def _step_files(steps: list[dict], out: set[str]) -> None:
    """The files the steps (and those inside their branches and loops) run in."""
    for step in steps:
        out.add(step.get("file", ""))
        for arm in step.get("arms", ()):
            _step_files(arm, out)
        if "body" in step:
            _step_files(step["body"], out)
