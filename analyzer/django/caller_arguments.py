"""What a transaction's parameters may be: the union of the arguments its callers pass.

A transaction that starts in a generic helper (`@atomic def save_all(instances, callback=None)`)
saves whatever model its callers hand it and calls whatever callback they pass. Its untyped
parameters are looked up at the helper's call sites in the application: each caller is walked
up to its call (its own helpers followed a little way, so `rows = build_rows(...)` is known), and
the arguments it passes become the parameter's candidates, an alternative (`Val("alts")`) that
the walk dispatches over at each use (dispatch.py), recording how many candidates there were.
A caller that passes its own untyped parameter is looked up at its callers in turn, a few
levels up. What the callers pass is an input of the transaction: the walk only keeps what kind
of object it is (a model, a new or stored row of a model, a queryset, a function).
"""

from __future__ import annotations

import re
from collections import Counter

from .context import Context
from .dispatch import alternatives, is_distinct, is_literal
from .index import FunctionInfo
from .values import QuerySet, Val, plain, value_sources, replace
from .walk_helpers import _statements
from .parameters import signature_of
from .walker import Recorder, StopWalk, Walker, bind_parameters, summary_store

# Callers walked per function, and levels of callers-of-callers followed.
MAX_CALLERS = 12
MAX_LEVELS = 3
# How far a caller's own helpers are followed while walking it to its call.
CALLER_DEPTH = 2
# Whether a caller walk made earlier in the scan with the same inputs is taken again
# (Context.caller_walks); tests switch it off to compare with walking every time.
REUSE_WALKS = True


def caller_arguments(ctx: Context, qualname: str, env: dict[str, Val], reached: set[str],
                     levels: int = MAX_LEVELS) -> dict[str, Val]:
    """For each untyped parameter of `qualname` (a plain input in `env`), the alternative of the
    arguments its callers pass, when one of them is an object the walk can use; `reached` gets
    the callers walked and the helpers followed in them (the result changes when they do)."""
    open_names = [name for name, value in env.items() if _untyped(value, name) and _read(ctx, qualname, name)]
    if not open_names or levels <= 0:
        return {}
    cache = ctx.caller_arguments
    key = (qualname, levels)
    if key not in cache:
        cache[key] = _collect(ctx, qualname, levels)
    # `key in cache` and `cache[key]` on every use: under a warm cache the memo is
    # cache/caller_arguments.py's, which takes a kept answer on a miss and tells the reuse what an
    # answer read on every read (a caller added elsewhere re-walks the transaction taking it).
    found, callers = cache[key]
    reached |= callers
    out = {}
    for name in open_names:
        candidates = [_as_input(v, name) for v in found.get(name, [])]
        value = alternatives(candidates)
        if value is not None and value.kind == "alts":
            out[name] = replace(value, text=name)
        elif value is not None and (is_distinct(value) or is_literal(value)):
            out[name] = value  # every caller passes the same kind of object, or the same literal
    return out


def _read(ctx: Context, qualname: str, name: str) -> bool:
    """Whether the definition of `qualname` may read its parameter `name`: the word occurs in its
    text (from `def` to its end) more than once, the signature naming it once. A parameter it never
    reads cannot change its walk, so its callers are not walked for it (callers-of-callers were
    most of the callers walked). A mention in a string or comment counts: it errs towards walking."""
    memo = ctx.parameter_reads
    key = (qualname, name)
    found = memo.get(key)
    if found is None:
        words = _words(ctx, qualname)
        if words is None:
            found = True
        elif _WORD.fullmatch(name):
            found = words[name] != 1
        else:  # not a run of word characters: counted as written (no name the parser accepts)
            text = _definition_text(ctx, qualname)
            found = len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text)) != 1
        memo[key] = found
    return found


_WORD = re.compile(r"\w+")


def _words(ctx: Context, qualname: str) -> Counter | None:
    """How often each word (a maximal run of word characters) occurs in the definition's text,
    counted once per definition: a name occurs as a whole word exactly where it is such a run."""
    memo = ctx.definition_words
    if qualname not in memo:
        text = _definition_text(ctx, qualname)
        memo[qualname] = Counter(_WORD.findall(text)) if text is not None else None
    return memo[qualname]


def _definition_text(ctx: Context, qualname: str) -> str | None:
    fn = ctx.index.function(qualname)
    info = ctx.index.modules.get(fn.module) if fn is not None else None
    if info is None:
        return None
    return "".join(info.source.lines_with_ends[fn.def_line - 1:fn.end_line])


def _untyped(value: Val, name: str) -> bool:
    return name not in ("self", "cls", "__qualname__") and value.kind == "plain" and \
        value.sources == frozenset({("input", name)})


def _collect(ctx: Context, qualname: str, levels: int) -> tuple[dict[str, list[Val]], set[str]]:
    fn = ctx.index.function(qualname)
    target = ctx.def_node(fn) if fn is not None else None
    if target is None:
        return {}, set()
    graph = ctx.index.call_graph()
    callers = sorted(graph.predecessors(qualname)) if qualname in graph else []
    found: dict[str, list[Val]] = {}
    walked: set[str] = set()
    for caller_name in callers[:MAX_CALLERS]:
        caller = ctx.index.function(caller_name)
        if caller is None or caller_name == qualname:
            continue
        walked.add(caller_name)
        for bound in _arguments_at_calls(ctx, caller, fn, target[1], levels, walked):
            for name, value in bound.items():
                found.setdefault(name, [])
                if value not in found[name]:
                    found[name].append(value)
    return found, walked


def _arguments_at_calls(ctx: Context, caller: FunctionInfo, fn: FunctionInfo, definition, levels: int,
                        walked: set[str]) -> list[dict[str, Val]]:
    """Walk `caller` (not its transaction: a fresh recorder) and bind the arguments of each of
    its calls to `fn` to `fn`'s parameters."""
    from .transactions import entry_env

    found = ctx.def_node(caller)
    if found is None:
        return []
    parsed, node = found
    env = entry_env(ctx, parsed, node, caller.cls, caller.qualname)
    env.update(caller_arguments(ctx, caller.qualname, env, walked, levels - 1))
    # The walk depends on the caller, the function and the caller's inputs alone (its depth
    # bound and stack follow from the first two): the same caller is asked for the same function
    # at several levels (a function that is a transaction and the caller of another one), most
    # often with the same inputs.
    key = _walk_key(caller.qualname, fn.qualname, env) if REUSE_WALKS else None
    kept = ctx.caller_walks.get(key) if key is not None else None
    if kept is not None:
        bound_before, reached_before = kept
        walked |= reached_before
        return [dict(arguments) for arguments in bound_before]
    bound: list[dict[str, Val]] = []

    # The caller's helpers are followed CALLER_DEPTH levels, also when the scan's own depth is
    # unbounded (the same context, with that bound, sharing the scan's summaries: made here
    # when none is yet, or the copy would make a store of its own and lose it).
    summary_store(ctx)
    bounded = ctx if ctx.max_depth is not None else replace(ctx, max_depth=CALLER_DEPTH)
    walker = ToTheCall(bounded, parsed, Recorder(values_only=True), env, cls=caller.cls,
                       depth=max(0, bounded.max_depth - CALLER_DEPTH),
                       stack=frozenset({caller.qualname, fn.qualname}))
    walker.target = (fn, definition, bound)
    try:
        walker.walk_statements(_statements(node.body))
    except (StopWalk, RecursionError):
        pass
    # What the caller's helpers return decides the arguments too: the definitions followed count
    # as reached by every transaction the arguments are given to (the memo in Context hands them
    # on when the arguments are asked for again).
    walked |= walker.rec.reached
    if key is not None:
        ctx.caller_walks[key] = (tuple(dict(arguments) for arguments in bound), frozenset(walker.rec.reached))
    return bound


def _walk_key(caller: str, function: str, env: dict[str, Val]) -> tuple | None:
    """The inputs of one caller walk, or None where a value cannot be hashed (a Q object's
    predicate is a dict): that walk is made every time."""
    key = (caller, function, tuple(env.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


class ToTheCall(Walker):
    """The caller's walk, recording the calls to `target`'s function instead of following them."""

    target: tuple = ()  # (the function, its definition, the list of bound arguments)

    def call_function(self, site, callee, positional, keywords, self_val, *args, **kwargs):
        fn, definition, bound = self.target
        if callee.qualname == fn.qualname:
            bound.append(bind_parameters(signature_of(self.ctx, definition, fn), positional, keywords, self_val))
            return plain()
        return super().call_function(site, callee, positional, keywords, self_val, *args, **kwargs)


def _as_input(value: Val, name: str) -> Val:
    """An argument seen at a call site, as an input of the transaction: what it is (its model,
    whether it is a new row), not the caller's step ids."""
    source = frozenset({("input", name)})
    kind = value.kind
    if kind == "instance":
        if value.origin == "new" and not value.key:
            return Val("instance", source, entity=value.entity, origin="new")
        return Val("instance", source, entity=value.entity, key=frozenset({("input", f"{name}.pk")}))
    if kind == "model":
        return Val("model", source, entity=value.entity, ref=value.ref)
    if kind == "qs":
        qs = QuerySet(value.qs.entity, dynamic=True, chain=value.qs.chain,
                      provider_classes=value.qs.provider_classes)
        return Val("qs", source, entity=value.entity, qs=qs)
    if kind == "rows":
        return Val("rows", source, entity=value.entity)
    if kind in ("func", "class", "self", "obj"):
        attrs = tuple((k, _as_input(v, name)) for k, v in value.attrs if k == "__self__")
        return replace(Val(kind, source, ref=value.ref, attrs=attrs), text=value.text if kind == "obj" else "")
    if kind == "alts":
        return alternatives([_as_input(v, name) for v in value.items]) or plain(source)
    if kind == "plain" and value.items:
        return Val("plain", source, items=tuple(_as_input(v, name) for v in value.items))
    if is_literal(value):
        return value  # a literal (None, a flag): it may decide a branch
    if kind == "dict":
        return Val("dict", source, attrs=tuple((k, _as_input(v, name)) for k, v in value.attrs))
    return plain(source | frozenset(s for s in value_sources(value) if s[0] == "input" and s[1] == name), name)
