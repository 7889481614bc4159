"""The fast whole-repository pass (tree-sitter): modules, imports, classes, functions, calls.

It answers the questions every later stage asks cheaply: what does a name in module M refer
to, which classes derive from which, which functions call which (a call graph), and
which files deserve the deep libcst pass. It never decides anything about transactions.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter as ts

from ..python_grammar import PYTHON as _LANGUAGE
from .files import SourceFile, module_name

# One pass over a module finds both: the callees of every call, and the Python 2 statements
# tree-sitter-python still accepts (Python 3 does not).
_MODULE_QUERY = ts.Query(_LANGUAGE, "(call function: [(identifier) (attribute)] @callee) "
                                    "[(print_statement) (exec_statement)] @py2")


@dataclass
class FunctionInfo:
    qualname: str
    module: str
    name: str
    cls: str | None           # qualname of the enclosing class, for methods
    line: int                 # first line (of the first decorator when decorated)
    def_line: int             # line of `def`
    end_line: int
    decorators: list[str]
    params: list[str]
    is_async: bool
    calls: list[str] = field(default_factory=list)
    parent: str | None = None  # enclosing function for nested defs
    nested: list[str] = field(default_factory=list)
    imports: dict[str, str] = field(default_factory=dict)  # function-local imports (name -> qualified)


@dataclass
class ClassInfo:
    qualname: str
    module: str
    name: str
    line: int
    end_line: int
    bases: list[str]
    decorators: list[str]
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    assigns: dict[str, str] = field(default_factory=dict)
    inner: dict[str, "ClassInfo"] = field(default_factory=dict)


@dataclass
class ModuleInfo:
    name: str
    rel: str
    is_package: bool
    source: SourceFile
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    assigns: dict[str, str] = field(default_factory=dict)
    has_error: bool = False
    python2_line: int = 0     # first Python 2-only statement, 0 when none


def _text(node: ts.Node) -> str:
    return node.text.decode("utf-8", "replace")


def _decorator_text(decorator: ts.Node) -> str:
    """The decorator's expression as written, without `@` and without a trailing comment
    (`@transaction.atomic  # noqa: TX101` is `transaction.atomic`)."""
    parts = [c for c in decorator.named_children if c.type != "comment"]
    return " ".join(_text(c) for c in parts).strip() if parts else _text(decorator)[1:].strip()


def _resolve_relative(module: str, is_package: bool, dots: int, target: str) -> str:
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    if dots > 1:
        base = base[: len(base) - (dots - 1)] if dots - 1 <= len(base) else []
    return ".".join([*base, target] if target else base)


class _ModuleBuilder:
    def __init__(self, info: ModuleInfo):
        self.info = info
        self._call_starts: list[int] = []  # start bytes of the module's callees, in order
        self._call_texts: list[str] = []

    def build(self, root: ts.Node) -> None:
        self.info.has_error = root.has_error
        captures = ts.QueryCursor(_MODULE_QUERY).captures(root)
        py2 = captures.get("py2", [])
        if py2:
            self.info.python2_line = min(n.start_point[0] for n in py2) + 1
        callees = sorted(captures.get("callee", []), key=lambda n: n.start_byte)
        self._call_starts = [n.start_byte for n in callees]
        self._call_texts = [n.text.decode("utf-8", "replace") for n in callees]  # _text(), without a call each
        self._block(root, cls=None, func=None)

    def _calls_within(self, node: ts.Node) -> list[str]:
        """The callees written inside `node` (nested definitions included), sorted and unique."""
        first = bisect.bisect_left(self._call_starts, node.start_byte)
        last = bisect.bisect_left(self._call_starts, node.end_byte, first)
        return sorted(set(self._call_texts[first:last]))

    def _block(self, node: ts.Node, cls: ClassInfo | None, func: FunctionInfo | None) -> None:
        for child in node.named_children:
            self._statement(child, cls, func)

    def _statement(self, node: ts.Node, cls, func) -> None:
        kind = node.type
        if kind == "decorated_definition":
            decorators = [_decorator_text(d) for d in node.named_children if d.type == "decorator"]
            definition = node.child_by_field_name("definition")
            if definition is not None:
                self._definition(definition, cls, func, decorators, node.start_point[0] + 1)
        elif kind in ("function_definition", "class_definition"):
            self._definition(node, cls, func, [], node.start_point[0] + 1)
        elif func is None and kind in ("import_statement", "import_from_statement", "future_import_statement"):
            self._import(node)
        elif func is None and kind == "expression_statement":
            expr = node.named_children[0] if node.named_children else None
            if expr is not None and expr.type == "assignment":
                left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
                if left is not None and right is not None and left.type == "identifier":
                    (cls.assigns if cls else self.info.assigns)[_text(left)] = _text(right)
        elif kind in ("if_statement", "try_statement", "with_statement", "else_clause", "except_clause",
                      "finally_clause", "elif_clause", "block"):
            # Definitions and imports under `if TYPE_CHECKING:` / `try: import x` still count.
            if kind == "block":  # the body of an except/else/finally clause
                self._block(node, cls, func)
                return
            for child in node.named_children:
                if child.type in ("block", "else_clause", "except_clause", "finally_clause", "elif_clause"):
                    self._block(child, cls, func)
        if func is not None and kind in ("if_statement", "for_statement", "while_statement", "try_statement",
                                         "with_statement"):
            for child in node.named_children:
                if child.type == "block":
                    self._nested_defs(child, cls, func)

    def _nested_defs(self, block: ts.Node, cls, func) -> None:
        for child in block.named_children:
            if child.type in ("decorated_definition", "function_definition", "class_definition"):
                self._statement(child, cls, func)
            elif child.type in ("import_statement", "import_from_statement") and func is not None:
                # A function-local import (often to break an import cycle) names what the body calls.
                self._import(child, func.imports)

    def _definition(self, node: ts.Node, cls, func, decorators: list[str], first_line: int) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node)
        owner = func.qualname if func else (cls.qualname if cls else self.info.name)
        qualname = f"{owner}.{name}" if owner else name
        body = node.child_by_field_name("body")
        if node.type == "class_definition":
            supers = node.child_by_field_name("superclasses")
            bases = []
            if supers is not None:
                bases = [_text(b) for b in supers.named_children if b.type != "keyword_argument"]
            info = ClassInfo(qualname, self.info.name, name, first_line, node.end_point[0] + 1, bases, decorators)
            if cls is not None:
                cls.inner[name] = info
            elif func is None:
                self.info.classes[name] = info
            if body is not None:
                self._block(body, info, None)
            return
        params = []
        parameters = node.child_by_field_name("parameters")
        if parameters is not None:
            for p in parameters.named_children:
                ident = p if p.type == "identifier" else (p.child_by_field_name("name") or next(
                    (c for c in p.named_children if c.type == "identifier"), None))
                if ident is not None and ident.type == "identifier":
                    params.append(_text(ident))
        first = node.child(0)
        # `async` comes first in a definition the grammar accepts; anywhere among its tokens otherwise
        is_async = (first is not None and first.type == "async") or (
            node.has_error and any(c.type == "async" for c in node.children))
        info = FunctionInfo(qualname, self.info.name, name, cls.qualname if cls and not func else None,
                            first_line, node.start_point[0] + 1, node.end_point[0] + 1, decorators, params,
                            is_async, parent=func.qualname if func else None)
        if body is not None:
            info.calls = self._calls_within(body)
        if func is not None:
            func.nested.append(qualname)
        if cls is not None and func is None:
            cls.methods[name] = info
        self.info.functions[qualname] = info
        if body is not None:
            self._nested_defs(body, cls, info)

    def _import(self, node: ts.Node, imports: dict[str, str] | None = None) -> None:
        imports = self.info.imports if imports is None else imports
        if node.type == "import_statement":
            for child in node.named_children:
                if child.type == "dotted_name":
                    full = _text(child)
                    imports[full.split(".")[0]] = full.split(".")[0]
                    imports[full] = full
                elif child.type == "aliased_import":
                    imports[_text(child.child_by_field_name("alias"))] = _text(child.child_by_field_name("name"))
            return
        if node.type != "import_from_statement":
            return
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        if module_node.type == "relative_import":
            raw = _text(module_node)
            dots = len(raw) - len(raw.lstrip("."))
            base = _resolve_relative(self.info.name, self.info.is_package, dots, raw.lstrip("."))
        else:
            base = _text(module_node)
        for child in node.named_children:
            if child == module_node:
                continue
            if child.type == "dotted_name":
                name = _text(child)
                imports[name] = f"{base}.{name}" if base else name
            elif child.type == "aliased_import":
                name = _text(child.child_by_field_name("name"))
                imports[_text(child.child_by_field_name("alias"))] = f"{base}.{name}" if base else name
            elif child.type == "wildcard_import":
                imports.setdefault("*", "")
                imports["*"] += base + ";"


class RepoIndex:
    """All modules of one scanned repository, and name resolution across them."""

    def __init__(self, package_prefix: str = "") -> None:
        self.package_prefix = package_prefix
        self.modules: dict[str, ModuleInfo] = {}
        self.functions: dict[str, FunctionInfo] = {}
        self.classes: dict[str, ClassInfo] = {}
        self._parser = ts.Parser(_LANGUAGE)
        self._call_graph: CallGraph | None = None  # built on first use
        # The warm cache's call-graph edges of unchanged files (analyzer/cache/django.py): a
        # function's edge targets kept from the last scan (None: work them out), and the hook
        # told each list worked out.
        self.kept_edges: Callable[[FunctionInfo], list[str] | None] | None = None
        self.made_edges: Callable[[FunctionInfo, list[str]], None] | None = None
        self._top: set[str] | None = None
        # Answers of resolve() and the resolved bases of classes: the walk asks the same questions
        # thousands of times, and the answers change only when a module is added.
        self._resolved: dict[tuple[str, str], str] = {}
        self._bases: dict[str, tuple[ClassInfo, list[str]]] = {}
        # What each function's calls and decorators resolve to (call_targets(), decorator_targets()):
        # the boundaries' passes ask it of every function, more than once.
        self._targets: dict[tuple[str, str], tuple[FunctionInfo, set[str]]] = {}

    def add(self, source: SourceFile) -> ModuleInfo:
        name = module_name(source.rel)
        if self.package_prefix:
            name = f"{self.package_prefix}.{name}" if name else self.package_prefix
        info = ModuleInfo(name, source.rel, source.rel.endswith("__init__.py"), source)
        tree = self._parser.parse(source.text.encode("utf-8"))
        _ModuleBuilder(info).build(tree.root_node)
        return self.add_info(info)

    def index_lines(self, module: ModuleInfo, source: SourceFile, text: str, first_line: int) -> ModuleInfo:
        """The facts `add` finds in the statements of `text` alone, `text` being whole lines of
        `module`'s file starting at line `first_line` (column 0): a fresh ModuleInfo named as
        `module`, holding only those statements' definitions, at their lines in the file. The
        module itself is not changed nor registered (analyzer/rewrite/index_patch.py puts the
        definitions of edited lines in place of their old ones)."""
        info = ModuleInfo(module.name, module.rel, module.is_package, source)
        tree = self._parser.parse(("\n" * (first_line - 1) + text).encode("utf-8"))
        _ModuleBuilder(info).build(tree.root_node)
        return info

    def add_info(self, info: ModuleInfo) -> ModuleInfo:
        """Register a module's facts (parsed now, or kept from an earlier scan of the same content)."""
        name = info.name
        self._forget()
        self.modules[name] = info
        self.functions.update(info.functions)
        for cls in info.classes.values():
            self._add_class(cls)
        return info

    def _forget(self) -> None:
        """Drop the remembered answers: the modules they were computed from changed."""
        self._resolved.clear()
        self._bases.clear()
        self._targets.clear()
        self._top = None
        self._call_graph = None
        self.__dict__.pop("_children", None)
        self.__dict__.pop("_linearizations", None)
        self.__dict__.pop("_mros", None)

    def _add_class(self, cls: ClassInfo) -> None:
        self.classes[cls.qualname] = cls
        for inner in cls.inner.values():
            self._add_class(inner)

    def add_source_root_aliases(self, roots: list[str]) -> None:
        """Also register modules by their name relative to a source root (`src/`, manage.py dirs)."""
        self._forget()
        for root in sorted(roots, key=len, reverse=True):
            prefix = root.replace("/", ".") + "."
            for name, info in list(self.modules.items()):
                if name.startswith(prefix):
                    self.modules.setdefault(name[len(prefix):], info)

    # -- resolution -------------------------------------------------------------------
    def resolve_in(self, function: str | None, module: str, dotted: str) -> str:
        """`dotted` as written inside `function`: its own imports and those of the functions
        around it first (`from django.db import transaction` inside a function), then `module`'s."""
        head, _, rest = dotted.partition(".")
        fn = self.functions.get(function) if function else None
        while fn is not None:
            target = fn.imports.get(head)
            if target is not None and "*" not in target:
                return self.canonical(f"{target}.{rest}" if rest else target)
            fn = self.functions.get(fn.parent) if fn.parent else None
        return self.resolve(module, dotted)

    def resolve(self, module: str, dotted: str, _depth: int = 0) -> str:
        """Qualified name of `dotted` as written in `module` (follows imports and re-exports)."""
        if _depth:
            return self._resolve(module, dotted, _depth)
        key = (module, dotted)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = self._resolve(module, dotted, 0)
        return found

    def _resolve(self, module: str, dotted: str, _depth: int) -> str:
        head, _, rest = dotted.partition(".")
        info = self.modules.get(module)
        if info is None:
            return dotted
        defined_here = f"{info.name}.{head}" in info.functions or head in info.classes or head in info.assigns
        if head in info.imports and not (defined_here and self._missing(info.imports[head])):
            target = info.imports[head]
        elif defined_here:  # also `try: from .fast import f` / `except ImportError: def f(...)`
            target = f"{info.name}.{head}" if info.name else head
        else:
            for star in info.imports.get("*", "").split(";"):
                if star and star in self.modules and _depth < 8 and self.exports(star, head):
                    candidate = self.resolve(star, head, _depth + 1)
                    if candidate != head:
                        target = candidate
                        break
            else:
                return dotted
        full = f"{target}.{rest}" if rest else target
        return self.canonical(full, _depth)

    def canonical(self, qualname: str, _depth: int = 0) -> str:
        """Follow re-exports: `shop.services.place_order` defined in `shop.services.checkout`."""
        if _depth > 8 or qualname in self.functions or qualname in self.classes:
            return qualname
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                info = self.modules[module]
                head = parts[cut]
                rest = ".".join(parts[cut + 1:])
                defined = head in info.classes or head in info.assigns or f"{info.name}.{head}" in self.functions
                if head in info.imports and not (defined and self._missing(info.imports[head])):
                    target = info.imports[head]
                    return self.canonical(f"{target}.{rest}" if rest else target, _depth + 1)
                if info.name != module:  # registered under a source-root alias
                    return self.canonical(".".join([info.name, *parts[cut:]]), _depth + 1)
                if not defined:  # `from .cables import *` in a package's __init__.py
                    resolved = self.resolve(module, head, _depth + 1)
                    if resolved != head:
                        return self.canonical(f"{resolved}.{rest}" if rest else resolved, _depth + 1)
                break
        return qualname

    def _missing(self, qualname: str) -> bool:
        """An import of the application's own package that names a module it does not have."""
        module = qualname.rpartition(".")[0]
        return module.split(".")[0] in self.top_packages() and module not in self.modules

    def exports(self, module: str, name: str) -> bool:
        """Whether `from module import *` brings `name`: listed in its `__all__` when it has one,
        otherwise any public name."""
        info = self.modules.get(module)
        listed = info.assigns.get("__all__") if info is not None else None
        if listed is None:
            return not name.startswith("_")
        if "+" in listed or "__all__" in listed:  # built from other modules' lists: cannot tell
            return True
        return f"'{name}'" in listed or f'"{name}"' in listed

    def top_packages(self) -> set[str]:
        """First segments of every module name: what `import x` of the application looks like."""
        if self._top is None:
            self._top = {name.split(".")[0] for name in self.modules if name}
        return self._top

    def function(self, qualname: str) -> FunctionInfo | None:
        return self.functions.get(qualname)

    def cls(self, qualname: str) -> ClassInfo | None:
        return self.classes.get(qualname)

    def call_targets(self, fn: FunctionInfo) -> set[str]:
        """What the callees written in `fn` resolve to (as written inside it: resolve_in), without
        their arguments. Remembered until a module is added; the caller must not change it."""
        return self._targets_of(fn, "calls")

    def decorator_targets(self, fn: FunctionInfo) -> set[str]:
        """What `fn`'s decorators resolve to in its module, without their arguments (as call_targets())."""
        return self._targets_of(fn, "decorators")

    def remember_targets(self, fn: FunctionInfo, kind: str, found: set[str]) -> None:
        """Take `found` as what `fn`'s "calls" or "decorators" resolve to (the warm cache's answer
        for an unchanged file, analyzer/cache/targets.py), as if worked out now."""
        self._targets[(fn.qualname, kind)] = (fn, found)

    def remembered_targets(self, fn: FunctionInfo, kind: str) -> set[str] | None:
        """What call_targets() / decorator_targets() remember of `fn`, None if not asked yet."""
        kept = self._targets.get((fn.qualname, kind))
        return kept[1] if kept is not None and kept[0] is fn else None

    def forget_targets(self) -> None:
        """Drop what call_targets() and decorator_targets() remembered, once the boundaries' passes
        are done with it (asked again, it is worked out again): a set per function, about 40 MB of
        a 300k-line project's peak when kept to the scan's end."""
        self._targets = {}

    def _targets_of(self, fn: FunctionInfo, kind: str) -> set[str]:
        kept = self._targets.get((fn.qualname, kind))
        if kept is None or kept[0] is not fn:  # two functions can share a qualified name (if/else)
            if kind == "calls":
                found = {self.resolve_in(fn.qualname, fn.module, c.split("(")[0]) for c in fn.calls}
            else:
                found = {self.resolve(fn.module, d.split("(")[0]) for d in fn.decorators}
            kept = self._targets[(fn.qualname, kind)] = (fn, found)
        return kept[1]

    def class_bases(self, cls: ClassInfo) -> list[str]:
        kept = self._bases.get(cls.qualname)
        if kept is None or kept[0] is not cls:  # two classes can share a qualified name (if/else)
            kept = self._bases[cls.qualname] = (cls, [self.resolve(cls.module, base) for base in cls.bases])
        return list(kept[1])

    def mro(self, qualname: str) -> list[ClassInfo]:
        """The class and its in-repository ancestors, nearest first (cycle safe). Remembered
        until a module is added (the walks ask for the same few classes thousands of times)."""
        mros = self.__dict__.setdefault("_mros", {})
        kept = mros.get(qualname)
        if kept is None:
            kept = mros[qualname] = tuple(self._ancestors(qualname))
        return list(kept)

    def _ancestors(self, qualname: str) -> list[ClassInfo]:
        seen, order, queue = set(), [], [qualname]
        while queue:
            current = queue.pop(0)
            if current in seen:
                continue
            seen.add(current)
            info = self.classes.get(current)
            if info is None:
                continue
            order.append(info)
            queue.extend(self.class_bases(info))
        return order

    def subclasses(self, qualname: str) -> list[str]:
        """Every class of the repository that derives from `qualname`, nearest first, sorted."""
        children = self.__dict__.get("_children")
        if children is None:
            children = {}
            for info in sorted(self.classes.values(), key=lambda c: c.qualname):
                for base in self.class_bases(info):
                    children.setdefault(base, []).append(info.qualname)
            self.__dict__["_children"] = children
        out, queue = [], list(children.get(qualname, []))
        while queue:
            current = queue.pop(0)
            if current not in out and current != qualname:
                out.append(current)
                queue.extend(children.get(current, []))
        return out

    def linearization(self, qualname: str) -> list[str]:
        """Python's method resolution order (C3) over the classes the index knows; classes outside
        the repository end a chain. Falls back to mro()'s order when C3 has no solution."""
        cache = self.__dict__.setdefault("_linearizations", {})
        if qualname not in cache:
            cache[qualname] = self._c3(qualname, frozenset()) or [c.qualname for c in self.mro(qualname)]
        return cache[qualname]

    def _c3(self, qualname: str, seen: frozenset) -> list[str] | None:
        info = self.classes.get(qualname)
        if info is None or qualname in seen:
            return [qualname] if info is None else None
        bases = self.class_bases(info)
        sequences = [self._c3(base, seen | {qualname}) for base in bases]
        if any(s is None for s in sequences):
            return None
        pending = [list(s) for s in sequences] + [list(bases)]
        order = [qualname]
        while any(pending):
            for sequence in pending:
                head = sequence[0] if sequence else None
                if head is not None and not any(head in other[1:] for other in pending):
                    break
            else:
                return None
            order.append(head)
            pending = [[c for c in s if c != head] for s in pending]
        return order

    def find_method(self, class_qualname: str, name: str) -> FunctionInfo | None:
        for info in self.mro(class_qualname):
            if name in info.methods:
                return info.methods[name]
        return None

    def call_graph(self) -> CallGraph:
        """Functions as nodes, resolved calls as edges (unresolved callees are left out)."""
        if self._call_graph is None:
            graph = CallGraph()
            for fn in self.functions.values():
                graph.add_node(fn.qualname)
                for target in self._edge_targets(fn):
                    graph.add_edge(fn.qualname, target)
            self._call_graph = graph
        return self._call_graph

    def built_call_graph(self) -> CallGraph | None:
        """The call graph, where call_graph() built it already (and no module was added since)."""
        return self._call_graph

    def adopt_call_graph(self, graph: CallGraph) -> None:
        """Take `graph` as this index's call graph: the caller has made sure that call_graph()
        would build an equal one (analyzer/rewrite/call_graph_reuse.py)."""
        self._call_graph = graph

    def _edge_targets(self, fn: FunctionInfo) -> list[str]:
        """edge_targets(fn), kept from the warm cache where it holds them (else told to it)."""
        kept = self.kept_edges(fn) if self.kept_edges is not None else None
        if kept is not None:
            return kept
        targets = self.edge_targets(fn)
        if self.made_edges is not None:
            self.made_edges(fn, targets)
        return targets

    def edge_targets(self, fn: FunctionInfo) -> list[str]:
        """The functions `fn`'s calls resolve to, in call order (a class's __init__ for a class):
        its edges in call_graph(), worked out now."""
        targets = []
        for callee in fn.calls:
            target = self.resolve(fn.module, callee)
            if target in self.functions:
                targets.append(target)
            elif target in self.classes:
                init = self.find_method(target, "__init__")
                if init:
                    targets.append(init.qualname)
        return targets


class CallGraph:
    """Which functions call which: the part of networkx's DiGraph the walk asks (membership and
    callers, in the order the edges were added), without importing networkx (which took longer
    than indexing a small project)."""

    def __init__(self) -> None:
        self._callers: dict[str, dict[str, None]] = {}

    def add_node(self, qualname: str) -> None:
        self._callers.setdefault(qualname, {})

    def add_edge(self, caller: str, callee: str) -> None:
        self.add_node(caller)
        self.add_node(callee)
        self._callers[callee][caller] = None

    def __contains__(self, qualname: object) -> bool:
        return qualname in self._callers

    def predecessors(self, qualname: str) -> Iterator[str]:
        return iter(self._callers[qualname])
