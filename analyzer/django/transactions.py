"""One transaction: the walk of its body from its boundary (docs/IR.md "transaction").

The enclosing function's parameters are the transaction's inputs; for a `with atomic()` block or
a manual `set_autocommit(False)`, the code before the boundary is walked first (its statements
run in autocommit, so what they return is an input of the transaction too).
"""

from __future__ import annotations

import re

import libcst as cst

from .boundaries import Boundary
from .context import Context, ParsedModule
from .caller_arguments import caller_arguments
from .dispatch import receiver_sender
from .syntax import code as _code
from .values import QuerySet, Val, plain
from .walker import Recorder, StopWalk, Walker


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
            managed = _managed_entity(ctx, cls) if entity is None else None
            if entity is not None:
                env[name] = (Val("model", entity=entity.name) if is_classmethod else
                             Val("instance", frozenset({("input", "self")}), entity=entity.name,
                                 key=frozenset({("input", "self.pk")})))
            elif managed is not None:
                # A transaction in a custom Manager/QuerySet method: `self` is that model's rows.
                env[name] = Val("qs", qs=QuerySet(managed.name, provider_classes=tuple(managed.queryset_classes)))
            else:
                env[name] = Val("self", ref=cls)
            continue
        env[name] = _typed_input(ctx, parsed, name, param.annotation)
        if name == "instance" and param.annotation is None:
            sender = receiver_sender(ctx, qualname)  # a signal receiver: the sender's instance
            if sender is not None:
                env[name] = Val("instance", frozenset({("input", name)}), entity=sender,
                                key=frozenset({("input", f"{name}.pk")}))
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            env[star.name.value] = plain({("input", star.name.value)})
    return env


def _managed_entity(ctx: Context, cls: str):
    """The one model whose manager or queryset class `cls` is. The classes' owners are listed
    once per scan: asked for every method's `self`, looking through every model each time cost
    0.18 s on a 300k-line project."""
    found = ctx.model_answer("models by manager or queryset class", None, lambda: _models_by_manager(ctx)).get(cls, ())
    return found[0] if len(found) == 1 else None


def _models_by_manager(ctx: Context) -> dict[str, list]:
    owners: dict[str, list] = {}
    for entity in ctx.entities.values():
        for queryset_class in set(entity.queryset_classes):
            owners.setdefault(queryset_class, []).append(entity)
    return owners


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
    txn, diagnostics, _reached = walk_transaction(ctx, parsed, boundary)
    return txn, diagnostics


def walk_transaction(ctx: Context, parsed: ParsedModule,
                     boundary: Boundary) -> tuple[dict, list[dict], frozenset[str]]:
    """The transaction, its diagnostics, and the qualified names of the definitions its walk
    reached (its own function and every function followed, directly or through a summary):
    the transaction's IR changes only when one of those definitions does."""
    recorder = Recorder()
    function_node = boundary.function_node
    owner_qualname = boundary.function if function_node is not None else parsed.info.name
    env = entry_env(ctx, parsed, function_node, boundary.cls, owner_qualname)
    if function_node is not None:  # untyped parameters: what the function's callers pass
        env.update(caller_arguments(ctx, boundary.function, env, recorder.reached))
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
            walker.rec.instances.clear()  # the pre-walk's steps are not the transaction's
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
    # Diagnostics of unresolved steps are added by the core, tied to the transaction.
    return txn, list(recorder.diagnostics), frozenset(recorder.reached | {boundary.function})


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


_COMMIT = re.compile(r"\b(commit|rollback)\(")


def _contains_commit(statement) -> bool:
    return bool(_COMMIT.search(_code(statement)))


def _is_commit(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and _contains_commit(statement)
