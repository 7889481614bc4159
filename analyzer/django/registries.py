"""Which models a module-level registry holds, when it is filled only at import time.

A project-wide `post_save` receiver often hands every saved row to a dispatcher that acts only
for models registered with it:

    handler_registry = {}
    def register_handler(handler_cls):
        handler_registry[handler_cls.model] = handler_cls()
    def handler_exists(instance):
        return instance._meta.model in handler_registry.keys()
    ...
    register_handler(CommentHandler)      # at the top level of some module

For a transaction that saves a model no module registers, `handler_exists` is False and the
dispatcher's task is never queued; without the registry's content the walk would report the task
as a strict effect of every save in the application. The registry's models are known only when
every write to it is `REGISTRY[<param>.model] = ...` (or through a local bound to `<param>.model`)
in a function of its own module, that function is called only at the top level of modules or as
a class decorator, and each call passes a class whose `model` names a model. Anything else (a
write elsewhere, a call from a function, an argument that is not a class) leaves the registry
unknown (None), and the comparison stays undecided.
"""

from __future__ import annotations

import ast

from .context import Context

_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"})


def registered_models(ctx: Context, ref: str) -> frozenset[str] | None:
    """Entity names the module-level registry `ref` holds, or None when that is not known."""
    cache = ctx.registries
    if ref not in cache:
        cache[ref] = _collect(ctx, ref)
    return cache[ref]


def _collect(ctx: Context, ref: str) -> frozenset[str] | None:
    module_name, _, name = ref.rpartition(".")
    info = ctx.index.modules.get(module_name)
    if info is None or "".join((info.assigns.get(name) or "").split()) not in ("{}", "dict()"):
        return None
    tree = _parse(info.source.text)
    if tree is None:
        return None
    writers: dict[str, tuple[int, str, str]] = {}  # qualname -> (parameter index, parameter, attribute)
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            written = _written_key(statement, name)
            if written is False:
                return None
            if written is not None:
                writers[f"{module_name}.{statement.name}"] = written
        elif _mutates(statement, name):
            return None  # written at the top level after its definition, or in a class body
    if not writers:
        return None
    graph = ctx.index.call_graph()
    if any(writer in graph and any(True for _ in graph.predecessors(writer)) for writer in writers):
        return None  # registered from a function: depends on what runs
    models: set[str] = set()
    for other in ctx.index.modules.values():
        text = other.source.text
        other_tree = tree if other is info else None  # each module parsed once, when its text names something
        if other is not info and name in text:
            other_tree = _parse(text)
            if other_tree is None or any(_mutates(node, name) for node in other_tree.body):
                return None
        for writer, (index, param, attr) in writers.items():
            short = writer.rpartition(".")[2]
            if short not in text:
                continue
            if other_tree is None:
                other_tree = _parse(text)
            found = _registrations(ctx, other, other_tree, writer, index, param, attr)
            if found is None:
                return None
            models |= found
    return frozenset(models)


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _written_key(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str):
    """(index, parameter, attribute) when the function's only writes to `name` are
    `name[<parameter>.<attribute>] = ...`; None when it does not write it; False otherwise."""
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    locals_: dict[str, tuple[str, str]] = {}
    key = None
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bound = _param_attribute(node.value, params)
            if bound:
                locals_[node.targets[0].id] = bound
    for node in ast.walk(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) and _is_name(node.value, name):
            if isinstance(node.ctx, ast.Del):
                return False
            written = _param_attribute(node.slice, params) or (
                locals_.get(node.slice.id) if isinstance(node.slice, ast.Name) else None)
            if written is None or (key is not None and key != written):
                return False
            key = written
        elif _is_mutator_call(node, name):
            return False
    if key is None:
        return None
    return (params.index(key[0]), key[0], key[1])


def _param_attribute(node, params: list[str]) -> tuple[str, str] | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in params:
        return (node.value.id, node.attr)
    return None


def _is_name(node, name: str) -> bool:
    """`name` or `<module>.name`."""
    return (isinstance(node, ast.Name) and node.id == name) or (isinstance(node, ast.Attribute) and node.attr == name)


def _is_mutator_call(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr in _MUTATORS and _is_name(node.func.value, name)


def _mutates(statement, name: str) -> bool:
    """A statement that writes the registry outside the functions that register (function
    bodies included: any write from elsewhere makes the content unknown)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)) and _is_name(node.value, name):
            return True
        if _is_mutator_call(node, name):
            return True
        if isinstance(node, ast.AugAssign) and _is_name(node.target, name):
            return True
    return False


def _registrations(ctx: Context, info, tree, writer: str, index: int, param: str, attr: str) -> set[str] | None:
    """Models registered by the top-level calls and class decorators of one module naming
    `writer`; None when a use of it is not one of those."""
    if tree is None:
        return None
    models: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                if _resolves(ctx, info, decorator, writer):
                    entity = _model_of(ctx, f"{info.name}.{node.name}", attr)
                    if entity is None:
                        return None
                    models.add(entity)
        if not isinstance(node, ast.Call) or not _resolves(ctx, info, node.func, writer):
            continue
        if not any(node is statement.value for statement in tree.body if isinstance(statement, ast.Expr)):
            return None  # not a top-level statement of its own
        argument = node.args[index] if index < len(node.args) else next(
            (k.value for k in node.keywords if k.arg == param), None)
        written = _dotted(argument)
        entity = _model_of(ctx, ctx.index.resolve(info.name, written), attr) if written else None
        if entity is None:
            return None
        models.add(entity)
    return models


def _resolves(ctx: Context, info, node, qualname: str) -> bool:
    written = _dotted(node)
    return bool(written) and ctx.index.resolve(info.name, written) == qualname


def _model_of(ctx: Context, class_qualname: str, attr: str) -> str | None:
    """The model a registered class names in its `attr` (`model = Comment`)."""
    for cls in ctx.index.mro(class_qualname):
        text = (cls.assigns.get(attr) or "").strip()
        if text:
            entity = ctx.entity_for_class(ctx.index.resolve(cls.module, text))
            return entity.name if entity is not None else None
    return None


def _dotted(node) -> str:
    """The written name of a class or function (`Handler`, `handlers.Handler`); "" for others."""
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""
