"""The Django front end: a repository in, IR records out (docs/IR.md).

Pipeline: read files (files.py) -> tree-sitter index of every module (index.py) ->
entities (models.py) -> boundaries on the modules that can hold one (boundaries.py) ->
a walk of each transaction (walker.py). Only modules that hold a transaction, or that a
transaction calls into, are parsed with libcst.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from . import orm_catalog as orm
from .boundaries import (
    Boundary, atomic_requests_settings, candidates, find_boundaries, find_wrappers, is_view_module, view_functions,
)
from .context import Context, ParsedModule
from .files import DEFAULT_EXCLUDES, DEFAULT_MAX_BYTES, FileProblem, iter_python_files, read_source
from .index import RepoIndex
from .models import Entity, ModelExtractor
from .values import Val, plain
from .syntax import code as _code
from .walker import Recorder, StopWalk, Walker


@dataclass
class Options:
    excludes: tuple[str, ...] = DEFAULT_EXCLUDES
    max_file_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = 6


@dataclass
class FrontendResult:
    records: list[dict]
    files: list[dict] = field(default_factory=list)   # {"path", "lines", "sha256"...} for the store
    lines: int = 0


def _diag(rel: str, line: int, code: str, message: str, severity: str = "error") -> dict:
    return {"ir": 1, "type": "diagnostic", "file": rel, "line": line, "code": code, "severity": severity,
            "message": message}


def _source_roots(root: Path, rels: list[str]) -> list[str]:
    roots = set()
    for rel in rels:
        parts = rel.split("/")
        if parts[-1] == "manage.py" and len(parts) > 1:
            roots.add("/".join(parts[:-1]))
        if "src" in parts[:-1]:
            roots.add("/".join(parts[: parts.index("src") + 1]))
    return sorted(roots)


def _django_user(name: str) -> Entity:
    """django.contrib.auth's User, when the application relates to it without defining its own."""
    return Entity(name=name, qualname="django.contrib.auth.models.User", table="auth_user",
                  file="<django.contrib.auth>", line=0, pk=["id"], unique=[["username"]],
                  fields=["email", "first_name", "id", "is_active", "is_staff", "last_name", "password", "username"],
                  relations=[], abstract=False, managers=["objects"])


def _auth_user(index: RepoIndex) -> str:
    for info in index.modules.values():
        value = info.assigns.get("AUTH_USER_MODEL")
        if value:
            return value.strip("'\"").split(".")[-1]
    return "User"


def _signals(index: RepoIndex) -> dict[tuple[str, str], list[str]]:
    receivers: dict[tuple[str, str], list[str]] = {}

    def add(signal: str, sender: str, fn: str, module: str) -> None:
        event = orm.SIGNALS.get(index.resolve(module, signal))
        if event is None:
            return
        entity = index.resolve(module, sender).split(".")[-1]
        receivers.setdefault((event, entity), []).append(fn)

    for fn in index.functions.values():
        for decorator in fn.decorators:
            if not decorator.startswith(("receiver(", "dispatch.receiver(")) and "receiver(" not in decorator:
                continue
            match = re.match(r"[\w.]*receiver\(\s*(\[[^\]]*\]|[\w.]+)\s*,?(.*)\)$", decorator, re.S)
            if not match:
                continue
            signals = re.findall(r"[\w.]+", match.group(1))
            sender = re.search(r"sender\s*=\s*([\w.]+)", match.group(2))
            for signal in signals:
                if sender:
                    add(signal, sender.group(1), fn.qualname, fn.module)
    for info in index.modules.values():
        if ".connect(" not in info.source.text:
            continue
        for signal, fn, sender in re.findall(r"([\w.]+)\.connect\(\s*([\w.]+)\s*,\s*sender\s*=\s*([\w.]+)",
                                             info.source.text):
            add(signal, sender, index.resolve(info.name, fn), info.name)
    return {key: sorted(set(value)) for key, value in receivers.items()}


def _param_names(entities, auth_user: str) -> dict:
    """`order_line` -> OrderLine: parameter names that name exactly one model."""
    names: dict[str, list] = {}
    for entity in entities:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", entity.name.split(".")[-1]).lower()
        names.setdefault(snake, []).append(entity)
        if entity.name == auth_user:
            names.setdefault("user", []).append(entity)
    # A name that is the tail of exactly one model's name (`mail` -> QueuedMail) counts too,
    # unless it already names a model of its own.
    for entity in entities:
        parts = re.sub(r"(?<!^)(?=[A-Z])", "_", entity.name.split(".")[-1]).lower().split("_")
        for cut in range(1, len(parts)):
            names.setdefault("_".join(parts[cut:]) + "#tail", []).append(entity)
    out = {name: found[0] for name, found in names.items() if len({e.name for e in found}) == 1 and "#" not in name}
    for key, found in names.items():
        name = key[:-5] if key.endswith("#tail") else None
        if name and name not in names and name not in _NOT_MODEL_NAMES and len({e.name for e in found}) == 1:
            out[name] = found[0]
    return out


# Parameter names that are almost never a model instance, whatever the models are called
# (`request` is not a ReturnRequest).
_NOT_MODEL_NAMES = {"request", "response", "data", "context", "form", "serializer", "payload", "params", "query",
                    "value", "item", "result", "message", "config", "settings", "status", "type", "kind", "name",
                    "key", "token", "code", "state", "info", "file", "path", "url", "task", "job"}


def _reverse_accessors(entities) -> dict[str, dict[str, tuple]]:
    reverse: dict[str, dict[str, tuple]] = {}
    for entity in entities:
        for relation in entity.relations:
            target, name = relation["target"], relation["reverse"]
            if not target or not name:
                continue
            through = f"{entity.name}.{relation['attribute']}" if relation["kind"] == "m2m" else None
            reverse.setdefault(target, {})[name] = (entity.name, relation["attribute"], relation["kind"], through)
    return reverse


def _package_prefix(root: Path) -> str:
    """`saleor` when the scanned folder is itself the package `saleor/` (it has __init__.py):
    absolute imports inside it (`from saleor.core import x`) then resolve."""
    parts: list[str] = []
    current = root
    while (current / "__init__.py").is_file() and current.parent != current:
        parts.insert(0, current.name)
        current = current.parent
    return ".".join(parts)


def scan(root: Path, options: Options = Options()) -> FrontendResult:
    root = root.resolve()
    diagnostics: list[dict] = []
    index = RepoIndex(_package_prefix(root))
    files: list[dict] = []
    total_lines = 0
    for path in iter_python_files(root, options.excludes):
        source = read_source(path, root, options.max_file_bytes)
        if isinstance(source, FileProblem):
            diagnostics.append(_diag(source.rel, 0, source.code, source.message))
            files.append({"path": source.rel, "lines": 0, "status": source.code})
            continue
        total_lines += source.lines
        try:
            info = index.add(source)
        except RecursionError:
            diagnostics.append(_diag(source.rel, 0, "parse-error", "nesting too deep to parse"))
            continue
        files.append({"path": source.rel, "lines": source.lines, "status": "ok"})
        if info.python2_line:
            diagnostics.append(_diag(source.rel, info.python2_line, "parse-error",
                                     "Python 2 syntax (print/exec statement); this file is not Python 3"))
        elif info.has_error:
            diagnostics.append(_diag(source.rel, _first_error_line(index, source.text), "parse-error",
                                     "syntax error (not Python 3 syntax?); definitions before the error are still used"))
    index.add_source_root_aliases(_source_roots(root, [f["path"] for f in files]))

    auth_user = _auth_user(index)
    entities = ModelExtractor(index, auth_user).extract()
    concrete = [e for e in entities if not e.abstract]
    if auth_user not in {e.name for e in concrete} and any(
            r["target"] == auth_user for e in concrete for r in e.relations):
        concrete.append(_django_user(auth_user))
        entities.append(concrete[-1])
    ctx = Context(
        index=index,
        entities={e.name: e for e in concrete},
        entity_by_qualname={e.qualname: e for e in concrete},
        reverse=_reverse_accessors(concrete),
        signals=_signals(index),
        wrappers=find_wrappers(index),
        max_depth=options.max_depth,
        auth_user=auth_user,
    )
    ctx.entity_by_param_name = _param_names(concrete, auth_user)
    enabled, ignored = atomic_requests_settings(index)
    for rel, line in ignored:
        diagnostics.append(_diag(rel, line, "ignored-setting", "ATOMIC_REQUESTS at the top level of settings is "
                                 "ignored by Django; it only counts inside DATABASES[alias]", "info"))
    boundaries: list[Boundary] = []
    for qualname, module, first, last, cls in candidates(ctx):
        parsed = ctx.parse_definition(index.modules[module], qualname, first, last)
        if parsed is not None:
            boundaries.extend(find_boundaries(ctx, parsed, qualname, cls))
    if enabled:
        views = [v for name in sorted(n for n, i in index.modules.items() if i.name == n)
                 if is_view_module(index.modules[name].rel) for v in view_functions(ctx, name)]
        view_names = {v.function for v in views}
        boundaries = [b for b in boundaries if b.function not in view_names or b.kind == "atomic-context"]
        boundaries = _drop_nested_in_views(boundaries, views) + views
    transactions = []
    unique: dict[tuple, Boundary] = {}
    for boundary in boundaries:
        # A class decorated with method_decorator is parsed whole, and its methods on their own
        # too: the same boundary can be found twice.
        unique.setdefault((boundary.parsed.info.rel, boundary.line), boundary)
    for boundary in sorted(unique.values(), key=lambda b: (b.parsed.info.rel, b.line, b.function)):
        parsed = boundary.parsed
        try:
            transactions.append(build_transaction(ctx, parsed, boundary))
        except RecursionError:
            diagnostics.append(_diag(parsed.info.rel, boundary.line, "internal-error", "recursion limit while walking"))
        except Exception as exc:  # noqa: BLE001 - one bad transaction must not end the scan
            diagnostics.append(_diag(parsed.info.rel, boundary.line, "internal-error",
                                     f"{type(exc).__name__}: {exc}"))
    diagnostics.extend(ctx.diagnostics)
    records = [{"ir": 1, "type": "meta", "frontend": "django", "root": root.name}]
    records += [e.ir() for e in entities]
    for txn, txn_diagnostics in transactions:
        records.append(txn)
        diagnostics.extend(txn_diagnostics)
    records += _dedupe(diagnostics)
    return FrontendResult(records, files, total_lines)


def _drop_nested_in_views(boundaries: list[Boundary], views: list[Boundary]) -> list[Boundary]:
    """Under ATOMIC_REQUESTS an atomic block inside a view is a savepoint of the request's transaction."""
    spans = [(v.function, v.line, v.end_line) for v in views]
    kept = []
    for b in boundaries:
        if b.kind != "atomic-requests" and any(b.function.startswith(f) and s <= b.line <= e for f, s, e in spans):
            continue
        kept.append(b)
    return kept


def _dedupe(diagnostics: list[dict]) -> list[dict]:
    seen, out = set(), []
    for d in diagnostics:
        key = (d["file"], d["line"], d["code"], d["message"])
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _first_error_line(index: RepoIndex, text: str) -> int:
    tree = index._parser.parse(text.encode("utf-8"))
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point[0] + 1
        stack.extend(reversed(node.children))
    return 0


# ---------------------------------------------------------------------- transactions
def entry_env(ctx: Context, parsed: ParsedModule, node: cst.FunctionDef | None, cls: str | None,
              qualname: str) -> dict[str, Val]:
    env: dict[str, Val] = {"__qualname__": Val("ref", ref=qualname)}
    if node is None:
        return env
    params = node.params
    ordered = list(params.posonly_params) + list(params.params)
    decorators = [_code(d.decorator) for d in node.decorators]
    is_static = any("staticmethod" in d for d in decorators)
    is_classmethod = any("classmethod" in d for d in decorators)
    entity = ctx.entity_for_class(cls) if cls else None
    for position, param in enumerate(ordered + list(params.kwonly_params)):
        name = param.name.value
        if position == 0 and cls and not is_static:
            if entity is not None:
                env[name] = (Val("model", entity=entity.name) if is_classmethod else
                             Val("instance", frozenset({("input", "self")}), entity=entity.name,
                                 key=frozenset({("input", "self.pk")})))
            else:
                env[name] = Val("self", ref=cls)
            continue
        env[name] = _typed_input(ctx, parsed, name, param.annotation)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            env[star.name.value] = plain({("input", star.name.value)})
    return env


def _typed_input(ctx: Context, parsed: ParsedModule, name: str, annotation) -> Val:
    """A parameter is an input; it is also a model instance when its annotation names a model,
    or, without annotation, when its name is the model's (`order` -> Order, `user` -> the user model)."""
    entity = None
    if annotation is not None:
        text = _code(annotation.annotation).strip("'\"")
        entity = ctx.entity_for_class(ctx.index.resolve(parsed.info.name, text))
    else:
        entity = ctx.entity_by_param_name.get(name)
    if entity is not None:
        return Val("instance", frozenset({("input", name)}), entity=entity.name,
                   key=frozenset({("input", f"{name}.pk")}))
    return plain({("input", name)}, name)


def _launder(env: dict[str, Val]) -> dict[str, Val]:
    """Values computed before the transaction are inputs to it (statements there run in autocommit)."""
    out = {}
    for name, value in env.items():
        if any(kind in ("result", "generated", "external") for kind, _ in value.sources) or value.origin:
            if value.kind == "instance":
                out[name] = Val("instance", frozenset({("input", name)}), entity=value.entity,
                                key=frozenset({("input", f"{name}.pk")}))
            elif value.kind == "qs":
                out[name] = value
            else:
                out[name] = plain({("input", name)}, name)
        else:
            out[name] = value
    return out


def build_transaction(ctx: Context, parsed: ParsedModule, boundary: Boundary) -> tuple[dict, list[dict]]:
    recorder = Recorder()
    function_node = boundary.function_node
    owner_qualname = boundary.function if function_node is not None else parsed.info.name
    env = entry_env(ctx, parsed, function_node, boundary.cls, owner_qualname)
    walker = Walker(ctx, parsed, recorder, env, cls=boundary.cls, stack=frozenset({boundary.function}))
    if boundary.kind in ("atomic-decorator", "atomic-requests") or (boundary.kind == "method-decorator"
                                                                      and not boundary.handlers):
        steps = walker.walk_block(function_node.body) if function_node is not None else []
    elif boundary.kind == "method-decorator":
        arms = []
        for _name, handler in boundary.handlers:
            handler_walker = Walker(ctx, parsed, recorder,
                                    entry_env(ctx, parsed, handler, boundary.cls, boundary.function),
                                    cls=boundary.cls, stack=frozenset({boundary.function}))
            arms.append(handler_walker.walk_block(handler.body))
        steps = arms[0] if len(arms) == 1 else ([{"node": "branch", "file": parsed.info.rel, "line": boundary.line,
                                                  "via": [], "uses": [], "arms": arms}] if arms else [])
    else:
        if function_node is not None:
            walker.stop_at = boundary.body_node
            try:
                walker.walk_block(function_node.body)
            except StopWalk:
                pass
            walker.stop_at = None
            walker.env = _launder(walker.env)
            walker.rec.fk_cache.clear()
        if boundary.kind == "atomic-context":
            steps = _walk_with(ctx, walker, boundary)
        else:
            steps = walker.walk_block(_after_marker(function_node, boundary.body_node))
    txn = {
        "ir": 1, "type": "transaction", "id": f"{parsed.info.rel}:{boundary.line}",
        "file": parsed.info.rel, "line": boundary.line, "end_line": boundary.end_line or boundary.line,
        "function": boundary.function, "boundary": boundary.kind, "wrapper": boundary.wrapper,
        "options": {k: v for k, v in sorted(boundary.options.items())}, "steps": steps,
    }
    diagnostics = list(recorder.diagnostics)
    for step in _unresolved(steps):
        diagnostics.append(_diag(step["file"], step["line"], "unresolved-call",
                                 f"{step['callee']}: {step['reason']} (in transaction {txn['id']})", "warning"))
    return txn, diagnostics


def _walk_with(ctx: Context, walker: Walker, boundary: Boundary) -> list[dict]:
    """The steps of a `with atomic():` block; through a context wrapper, the wrapper's own
    statements around its `yield` belong to the transaction too."""
    with_node = boundary.body_node
    for item in with_node.items:
        if item.asname is not None:
            walker.assign(item.asname.name, plain({("constant", "transaction")}), None)
    wrapper = ctx.index.function(boundary.wrapper) if boundary.wrapper else None
    if wrapper is None or ctx.wrappers.get(boundary.wrapper) != "context":
        return walker.walk_block(with_node.body)
    call = next((i.item for i in with_node.items if isinstance(i.item, cst.Call)), None)
    positional, keywords = ([], [])
    if call is not None:
        positional, keywords, _dynamic, _q = walker.call_arguments(call)
    walked = []

    def run_body(out: list[dict]) -> None:
        walked.append(True)
        out.extend(walker.walk_block(with_node.body))

    saved, walker.out = walker.out, []
    walker.call_function(with_node, wrapper, positional, keywords, None, yield_hook=run_body)
    steps, walker.out = walker.out, saved
    if not walked:
        steps.extend(walker.walk_block(with_node.body))
    return steps


def _unresolved(steps: list[dict]):
    for step in steps:
        if step["node"] == "unresolved":
            yield step
        elif step["node"] == "branch":
            for arm in step["arms"]:
                yield from _unresolved(arm)
        elif step["node"] == "loop":
            yield from _unresolved(step["body"])


def _after_marker(function_node, marker) -> list:
    """Statements after `set_autocommit(False)` in the block that holds it, up to commit/rollback."""
    if function_node is None:
        return []
    found: list = []

    class Finder(cst.CSTVisitor):
        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
            if marker in node.body and not found:
                found.extend(node.body[node.body.index(marker) + 1:])
                return False
            return True

    function_node.visit(Finder())
    # The transaction ends at the first commit()/rollback() of that block; what follows runs
    # in autocommit again.
    for index, statement in enumerate(found):
        if _is_commit(statement):
            return found[:index]
        if _contains_commit(statement):  # `try: ... commit() except: rollback()`
            return found[:index + 1]
    return found


def _contains_commit(statement) -> bool:
    return bool(re.search(r"\b(commit|rollback)\(", _code(statement)))


def _is_commit(statement) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        code = _code(statement)
        return bool(re.search(r"\b(commit|rollback)\(", code))
    return False
