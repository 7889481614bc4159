"""Rewrite plans of the explicit transactions, made by the autocommit helper once its walks are done.

Planning a rewrite (rewrite/plan.py: a libcst parse of the statement's definition, the rewrite's
code and diff, its parse and names checks) reads only the files, the transaction's record, the
entities and the project's wrappers. The Django builders (on-commit, read-modify-write) answer
suggestions the core makes from a transaction's interactivity alone, which reads only its own IR
line: none depends on the CDA mode, nor on the autocommit transactions. So the plans can be made
as soon as the explicit transactions are walked, before the autocommit phase, the IR and the core.

The scan's process is busy until then, but the autocommit helper (autocommit_parallel.py) is not:
on a small project it walks until the scan's autocommit phase ends and is then stopped, and on a
larger one it is idle from the end of its walks. So the scan sends the helper, right after its
explicit walks, the IR lines of the entities and the explicit transactions (the IR's round trip
gives the core and the planning the same records); when its walks are done, or the scan's phase
has ended (a slot of the shared page), the helper works out the suggestions (the core, pk mode)
and plans the candidates in the scan's order from the first, passing each plan on. When the scan
gets to planning, it takes what has arrived and plans the rest from the last, marking in the shared
page the first it took on; the helper stops before it. What the helper is planning at that moment
is waited for (the helper ends its planning at the mark, so the wait is for one plan at most); a
helper that ends, fails or sends damaged data leaves its share to the scan.

A plan is taken only under the key the scan's own candidate has (transaction, kind, pattern,
statement) and when the helper's project wrappers are the scan's, so what the scan does with it is
what it would do with its own; the output is the one-process output. Where the helper has not
started planning when the scan gets there, the scan plans everything as before (shared_work.py).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

from .. import forked, ir
from . import autocommit_parallel as parallel

# The page's slots of this exchange: the scan's autocommit phase has ended (the helper walks no
# more and plans), the first plan the scan took on (+1; 0: none), the plan the helper is on (+1).
_PHASE_DONE, _SCAN_PLAN, _HELPER_PLAN = parallel.PLAN_SLOTS
# Frames the helper sends: the keys of its plans in its order and its project's wrappers, one plan
# (its key, what plan.candidates' planning gives), the end of its planning.
_KEYS, _PLAN, _DONE = parallel.PLAN_FRAMES
# The scan's frame down to the helper: (the root the rewrites read files under, the IR lines).
_RECORDS = parallel.RECORDS_FRAME


def send_records(helper: parallel.Helper | None, root: Path | None, entities: list, explicit: list[dict],
                 known: dict[int, tuple[dict, str]]) -> dict[int, tuple[dict, str]]:
    """Send the helper what it plans from, once the explicit transactions are walked: `root` (the
    scan's rewrites' root; None: no rewrites, the helper told so), the entities' (models.Entity)
    and transactions' IR records. Returns id(record) -> (record, its IR line) of the transactions'
    lines encoded here (`known`: those the warm cache's entries encoded already), for ir.dumps not
    to encode them again."""
    if helper is None or not helper.can_send_down():
        return {}
    if root is None or not explicit:
        helper.send_down((_RECORDS, None, None))  # nothing to plan: the helper ends after its walks
        return {}
    lines = [ir.line(entity.ir()) for entity in entities]
    encoded: dict[int, tuple[dict, str]] = {}
    for txn in explicit:
        hit = known.get(id(txn))
        if hit is None or hit[0] is not txn:
            hit = encoded[id(txn)] = (txn, ir.line(txn))
        lines.append(hit[1])
    if not helper.send_down((_RECORDS, None, (root, "\n".join(lines)))):
        return encoded
    helper.plans_wanted = True
    return encoded


def hand_over(helper: parallel.Helper | None) -> AheadPlans | None:
    """At the end of the scan's autocommit phase: the helper told to plan (where its records were
    sent), kept alive for the rewrites; None: nothing to plan there (the caller stops the helper)."""
    if helper is None or not helper.plans_wanted or (helper.pid <= 0 and helper.channel < 0):
        return None
    parallel.mark_scan(helper.position, _PHASE_DONE, 0)
    helper.kept_for_plans = True
    helper.pending.clear()  # (autocommit walks no longer taken)
    return AheadPlans(helper)


class AheadPlans:
    """The scan's side: plans taken as they arrive, the rest planned here (plan.candidates' `ahead`)."""

    def __init__(self, helper: parallel.Helper) -> None:
        self.helper = helper
        self.taken = 0      # plans taken from the helper (for tests)
        self.planned = 0    # plans made here while the helper was planning
        self.not_shared = 0  # plans made as without this helper (it was not planning)

    def work(self, jobs: list, plan: Callable, keys: list, wrappers: frozenset, alone: Callable[[], list]) -> list:
        """[plan(job) for job in jobs], taking the helper's plan of a job's key where it has one.
        `alone()`: the jobs planned without this helper (when it is not planning)."""
        helper = self.helper
        try:
            if forked.setting() == "wait":
                helper.wait_for_plans(parallel.WAIT_SECONDS)
            helper.read()
            theirs = helper.plan_keys
            if theirs is None or theirs[1] != wrappers:
                parallel.mark_scan(helper.position, _SCAN_PLAN, 0)  # (it plans nothing from now on)
                self.release()
                self.not_shared = len(jobs)
                return alone()
            position = {key: n for n, key in enumerate(theirs[0])}
            results: list = [None] * len(jobs)
            left = -1  # jobs[:left + 1]: the helper's, being planned or planned
            for i in range(len(jobs) - 1, -1, -1):
                helper.read()
                if keys[i] in helper.plans:
                    results[i] = self._take(keys[i])
                    continue
                n = position.get(keys[i])
                if n is not None:
                    parallel.mark_scan(helper.position, _SCAN_PLAN, n)
                    if not helper.plans_done and parallel.scan_reached(helper.position, _HELPER_PLAN, n):
                        left = i  # the helper is on it: it ends there
                        break
                results[i] = plan(jobs[i])
                self.planned += 1
            if left >= 0:
                helper.wait_for_plans(forked.WAIT_SECONDS, [keys[i] for i in range(left + 1) if results[i] is None])
                for i in range(left + 1):
                    if results[i] is None:
                        if keys[i] in helper.plans:
                            results[i] = self._take(keys[i])
                        else:
                            results[i] = plan(jobs[i])
                            self.planned += 1
            return results
        finally:
            self.release()

    def _take(self, key: tuple):
        self.taken += 1
        return self.helper.plans.pop(key)

    def release(self) -> None:
        """The helper is needed no more: stopped if it is still planning. Not reaped here (stop(), at
        the scan's end): a helper that has passed on its last plan ends by itself, and reaping it
        waits for the system to free its memory, which it does meanwhile on the other core."""
        helper = self.helper
        if helper.pid > 0 and not helper.plans_done:
            try:
                os.kill(helper.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop(self) -> None:
        """End the helper (done or not) and reap it."""
        self.helper.kept_for_plans = False
        self.helper.stop()


def plan_in_helper(helper: parallel.Helper) -> None:  # pragma: no cover - runs in the helper
    """The helper's planning: once the scan's records have arrived, every candidate from the first,
    each passed on, until the one the scan took on."""
    from ..core import Settings, analyze
    from ..rewrite import plan
    from ..rewrite.verify import check

    sent = helper.wait_for_records()
    if sent is None:
        return  # the scan plans no rewrites
    root, text = sent
    records = list(ir.loads(text))
    entities = {r["name"]: r for r in records if r["type"] == "entity"}
    analyses = {"pk": analyze(records, Settings("pk"))}  # (its suggestions of a Django builder's kinds)
    plan.candidates(root, "django", records, analyses, then=lambda candidate: check(root, candidate, entities),
                    ahead=_Planning(helper))


class _Planning:
    """The helper's side of plan.candidates' `ahead`."""

    def __init__(self, helper: parallel.Helper) -> None:
        self.helper = helper

    def work(self, jobs: list, plan: Callable, keys: list, wrappers: frozenset,
             alone: Callable[[], list]) -> list:  # pragma: no cover - runs in the helper
        helper = self.helper
        parallel.send(helper.channel, (_KEYS, None, (keys, wrappers)))
        for n, job in enumerate(jobs):
            parallel.mark_scan(helper.position, _HELPER_PLAN, n)
            claimed = parallel.marked(helper.position, _SCAN_PLAN)
            if claimed is not None and n >= claimed or os.getppid() != helper.scan_pid:
                break  # the scan has taken on this one and the rest
            parallel.send(helper.channel, (_PLAN, keys[n], plan(job)))
        parallel.send(helper.channel, (_DONE, None, None))
        return [(None, "", set(), None)] * len(jobs)  # (the helper's candidates are not used)
