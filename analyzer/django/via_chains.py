"""The application's functions on a transaction's call chains, read off its IR steps.

The autocommit phase needs, of every explicit transaction, the functions its walk ran in and who
called each of them there (autocommit.py, entry_points). Reading them off the steps is a pass
over every step of every transaction; it is a function of the transaction's record alone, so
the warm cache keeps it with the record (cache/django.py) and a reused transaction is not read
again.
"""

from __future__ import annotations


def via_chains(steps: list[dict]) -> list[list]:
    """[functions on the steps' call chains (sorted), [caller, callee] pairs of consecutive
    functions on a chain (sorted)]; the transaction's own body is not one, nor are `<...>`
    frames (lambdas, comprehensions)."""
    functions: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    _collect(steps, functions, pairs)
    return [sorted(functions), [list(pair) for pair in sorted(pairs)]]


def _collect(steps: list[dict], functions: set[str], pairs: set[tuple[str, str]]) -> None:
    for step in steps:
        via = step.get("via", [])
        functions.update(name for name in via if not name.startswith("<"))
        for caller, callee in zip(via, via[1:]):
            if not caller.startswith("<") and not callee.startswith("<"):
                pairs.add((caller, callee))
        for arm in step.get("arms", []):
            _collect(arm, functions, pairs)
        _collect(step.get("body", []), functions, pairs)
