"""Per-scan shared knowledge for the deep pass: parsed modules, entities, signals, wrappers.

libcst parses a module only when the deep pass first needs it (a transaction is in it, or a
transaction calls into it), and only once; line numbers come from positions.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from ..ir import diagnostic
from .index import FunctionInfo, ModuleInfo, RepoIndex
from . import ast_convert
from .parsing import parse_module
from .models import Entity
from .node_types import FUNCTION_DEF
from .positions import line_numbers


@dataclass
class ParsedModule:
    """One function or class of a module, parsed with libcst on its own.

    Parsing only the definitions a transaction needs (not their whole modules) is what keeps
    the deep pass fast: libcst is about 20x slower than tree-sitter, and most of a module is
    code no transaction reaches. An indented definition (a method) is parsed inside a dummy
    `class _:` header so its indentation stays as written; line numbers (positions.py) are
    those of the module.
    """

    info: ModuleInfo
    node: cst.FunctionDef | cst.ClassDef
    tree: cst.Module            # what was parsed (the definition, under its dummy header)
    first_line: int             # line of the module where `tree` starts
    _lines: tuple | None = None     # (start lines, end lines); given for a converted tree

    def _numbered(self) -> tuple[dict, dict]:
        # Counted on first use: a definition parsed only to be looked at (no statement, no
        # boundary in it) never pays for numbering its nodes.
        if self._lines is None:
            self._lines = line_numbers(self.tree, first_line=self.first_line)
        return self._lines

    def line(self, node: cst.CSTNode) -> int:
        return self._numbered()[0].get(node, 0)

    def end_line(self, node: cst.CSTNode) -> int:
        return self._numbered()[1].get(node, 0)


def _converted(info: ModuleInfo, text: str, indented: bool, offset: int) -> ParsedModule | None:
    """The definition parsed with `ast` and converted (ast_convert.py), None where that cannot be
    done: a syntax error (libcst reports it), or a construct the converter does not map."""
    try:
        module, starts, ends, _source = ast_convert.convert(text, offset + 1)
    except ast_convert.NOT_CONVERTED:
        return None
    body = module.body
    if indented and body and isinstance(body[0], cst.ClassDef):
        body = body[0].body.body
    node = next((n for n in body if isinstance(n, (cst.FunctionDef, cst.ClassDef))), None)
    if node is None:
        return None
    return ParsedModule(info, node, module, offset + 1, (starts, ends))


@dataclass
class Context:
    index: RepoIndex
    entities: dict[str, Entity]                 # by entity name
    entity_by_qualname: dict[str, Entity]
    reverse: dict[str, dict[str, tuple]]        # entity -> accessor -> (other entity, attr, kind, through)
    signals: dict[tuple[str, str], list[str]]   # (event, entity) -> receiver qualnames
    wrappers: dict[str, str]                    # qualname -> "context" | "decorator"
    max_depth: int = 6
    auth_user: str = "User"
    diagnostics: list[dict] = field(default_factory=list)
    entity_by_param_name: dict = field(default_factory=dict)
    extra_effects: dict[str, str] = field(default_factory=dict)      # user catalog: callee -> category
    extra_statements: dict[str, str] = field(default_factory=dict)   # user catalog: callee -> kind
    primed_memos: frozenset[str] | None = None  # thread_memo.request_primed, computed once
    summaries: object = None        # walker.summary_store: the scan's SummaryStore, made on first use
    caller_arguments: dict = field(default_factory=dict)  # caller_arguments: (qualname, levels) -> found
    parameter_reads: dict = field(default_factory=dict)   # caller_arguments._read: (qualname, name) -> bool
    definition_words: dict = field(default_factory=dict)  # caller_arguments._words: qualname -> Counter
    # caller_arguments._arguments_at_calls: (caller, function, inputs) -> (arguments bound, reached)
    caller_walks: dict = field(default_factory=dict)
    globals_memo: dict = field(default_factory=dict)  # calls.resolve_global: (function, module, name) -> Val
    # Answers worked out from the models alone (model_answer()): (question, subject) -> answer.
    model_answers: dict = field(default_factory=dict)
    registries: dict = field(default_factory=dict)  # registries.registered_models: registry -> entity names
    # parameters.signature_of: id(definition) -> (definition, its FunctionInfo, its Signature)
    signatures: dict = field(default_factory=dict)
    _mixins: dict[str, bool] = field(default_factory=dict)
    _lower: dict[str, Entity] = field(default_factory=dict)
    _parsed: dict[str, "ParsedModule | None"] = field(default_factory=dict)

    def parse_definition(self, info: ModuleInfo, qualname: str, first_line: int, end_line: int):
        """Parse lines first_line..end_line of a module (one def or class) with libcst."""
        if qualname in self._parsed:
            return self._parsed[qualname]
        lines = info.source.lines_with_ends[first_line - 1:end_line]
        indented = bool(lines) and lines[0][:1] in (" ", "\t")
        text = ("class _:\n" if indented else "") + "".join(lines)
        offset = first_line - 1 - (1 if indented else 0)
        parsed = _converted(info, text, indented, offset)
        if parsed is not None:
            self._parsed[qualname] = parsed
            return parsed
        try:
            module = parse_module(text)
            body = module.body
            if indented and body and isinstance(body[0], cst.ClassDef):
                body = body[0].body.body
            node = next((n for n in body if isinstance(n, (cst.FunctionDef, cst.ClassDef))), None)
            if node is not None:
                parsed = ParsedModule(info, node, module, offset + 1)
        except cst.ParserSyntaxError as exc:
            self.diagnostics.append(diagnostic(info.rel, exc.raw_line + offset, "parse-error",
                                               f"{qualname}: syntax error: {exc.message}"))
        except RecursionError:
            self.diagnostics.append(diagnostic(info.rel, first_line, "parse-error",
                                               f"{qualname}: nesting too deep to parse"))
        self._parsed[qualname] = parsed
        return parsed

    def def_node(self, fn: FunctionInfo) -> tuple[ParsedModule, cst.FunctionDef] | None:
        info = self.index.modules.get(fn.module)
        if info is None:
            return None
        parsed = self.parse_definition(info, fn.qualname, fn.line, fn.end_line)
        if parsed is None or type(parsed.node) not in FUNCTION_DEF:
            return None
        return parsed, parsed.node

    def is_model_mixin(self, qualname: str) -> bool:
        """A class that concrete models inherit from without being a model itself."""
        if qualname not in self._mixins:
            self._mixins[qualname] = any(
                qualname in {c.qualname for c in self.index.mro(e.qualname)[1:]} for e in self.entities.values())
        return self._mixins[qualname]

    def entity_named(self, name: str) -> Entity | None:
        """An entity by class name as apps.get_model takes it: case-insensitive ("product")."""
        if name in self.entities:
            return self.entities[name]
        if not self._lower:
            for entity in self.entities.values():
                self._lower.setdefault(entity.name.lower(), entity)
        return self._lower.get(name.lower())

    def model_answer(self, question: str, subject, work: Callable[[], tuple | dict]):
        """The answer to `question` about `subject` worked out from the models alone (`work()`,
        an immutable tuple or a dict no caller changes): the same for the whole scan, so worked
        out once (model_answers)."""
        key = (question, subject)
        found = self.model_answers.get(key)
        if found is None:
            found = self.model_answers[key] = work()
        return found

    def entity_for_class(self, qualname: str) -> Entity | None:
        return self.entity_by_qualname.get(qualname)
