"""Per-thread memoised values that a middleware fills before the view runs.

A module-level `threading.local()` (or asgiref's `Local()`) memo function

    def get_settings():
        if not hasattr(_local, "settings"):
            _local.settings = Settings()   # may read Django's cache or the database
        return _local.settings

computes its value once per thread. When a middleware calls that function before it hands the
request on (`__call__` before `get_response(...)`, or `process_request`/`process_view`), every
view, and so every transaction a view opens, finds the value already in the thread's memory:
the computation (its cache or database reads) ran outside the transaction, and the call inside
it is a read of process memory, not a statement or an external call. Such a function is not
followed (docs/DECISIONS.md).
"""

from __future__ import annotations

import re

THREAD_LOCAL_CLASSES = {"threading.local", "_threading_local.local", "asgiref.local.Local"}
MIDDLEWARE_HOOKS_BEFORE_VIEW = {"process_request", "process_view"}


def request_primed(ctx, qualname: str) -> bool:
    """`qualname` is a thread-local memo function that a middleware fills before the view."""
    return qualname in primed_memos(ctx)


def primed_memos(ctx) -> frozenset[str]:
    """Every such function of the project (computed once per context)."""
    if ctx.primed_memos is None:
        ctx.primed_memos = frozenset(_primed(ctx))
    return ctx.primed_memos


def _primed(ctx) -> set[str]:
    memos = _memo_functions(ctx)
    if not memos:
        return set()
    primed: set[str] = set()
    for fn in ctx.index.functions.values():
        if fn.cls is None or not _is_middleware(fn):
            continue
        if fn.name != "__call__" and fn.name not in MIDDLEWARE_HOOKS_BEFORE_VIEW:
            continue
        text = _source(ctx, fn)
        for callee in fn.calls:
            target = ctx.index.resolve_in(fn.qualname, fn.module, callee.split("(")[0])
            if target not in memos:
                continue
            if fn.name == "__call__" and not _called_before_view(text, callee.split(".")[-1]):
                continue
            primed.add(target)
    return primed


def _memo_functions(ctx) -> set[str]:
    """Module-level functions that return a thread-local attribute they set when it is missing."""
    found: set[str] = set()
    for module in ctx.index.modules.values():
        local_names = [name for name, text in module.assigns.items() if _is_thread_local(ctx, module.name, text)]
        for name in local_names:
            for fn in module.functions.values():
                if fn.cls is None and fn.parent is None and _memoises(_source(ctx, fn), name):
                    found.add(fn.qualname)
    return found


def _is_thread_local(ctx, module: str, text: str) -> bool:
    match = re.fullmatch(r"\s*([\w.]+)\(\)\s*", text)
    return bool(match) and ctx.index.resolve(module, match.group(1)) in THREAD_LOCAL_CLASSES


def _memoises(text: str, local: str) -> bool:
    """`if not hasattr(local, "x")` / `getattr(local, "x", None)`, `local.x = ...`, `return local.x`."""
    name = re.escape(local)
    for match in re.finditer(rf"\b(?:hasattr|getattr)\(\s*{name}\s*,\s*['\"](\w+)['\"]", text):
        attr = re.escape(match.group(1))
        if re.search(rf"\b{name}\.{attr}\s*=[^=]", text) and re.search(rf"\breturn\s+{name}\.{attr}\b", text):
            return True
    return False


def _is_middleware(fn) -> bool:
    return fn.cls.rsplit(".", 1)[-1].endswith("Middleware") or ".middleware" in f".{fn.module}"


def _called_before_view(text: str, name: str) -> bool:
    """In a middleware's __call__, the memo call comes before the request is handed on."""
    call = re.search(rf"\b{re.escape(name)}\(", text)
    handed_on = re.search(r"\bget_response\(", text)
    return call is not None and (handed_on is None or call.start() < handed_on.start())


def _source(ctx, fn) -> str:
    info = ctx.index.modules.get(fn.module)
    if info is None:
        return ""
    return info.source.lines_between(fn.line, fn.end_line)
