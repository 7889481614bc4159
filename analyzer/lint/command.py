"""`txscan lint`: options in, findings out, exit status 0 (clean), 1 (findings) or 2 (error)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from .. import timing
from .baseline import BaselineError
from .formats import RENDERERS
from .formats.common import use_colour
from .runner import LintError, LintOptions, run
from .settings import Overrides

CLEAN, FINDINGS, ERROR = 0, 1, 2


def _split(values: list[str] | None) -> tuple[str, ...]:
    """`--select TX1,TX301 --select TX2` -> ("TX1", "TX301", "TX2")."""
    return tuple(v.strip() for value in values or () for v in value.split(",") if v.strip())


def main(paths: list[Path], output_format: str = "concise", select: list[str] | None = None,
         extend_select: list[str] | None = None, ignore: list[str] | None = None, exit_zero: bool = False,
         settings_file: Path | None = None, baseline: Path | None = None, write_baseline: Path | None = None,
         frontend: str | None = None, fix: bool = False, diff: bool = False, stream=None, cache: bool = False) -> int:
    """`cache`: scans use the project's warm cache (.txscan/cache), as the command line does."""
    status = _main(paths, output_format, select, extend_select, ignore, exit_zero, settings_file, baseline,
                   write_baseline, frontend, fix, diff, stream, cache)
    timing.write_if_asked()  # scripts/benchmark.py's phases, only when TXSCAN_TIMINGS_FILE asks
    return status


def _main(paths: list[Path], output_format: str, select: list[str] | None, extend_select: list[str] | None,
          ignore: list[str] | None, exit_zero: bool, settings_file: Path | None, baseline: Path | None,
          write_baseline: Path | None, frontend: str | None, fix: bool, diff: bool, stream, cache: bool) -> int:
    stream = stream or sys.stdout
    if cache:
        from ..cache import project_caches

        with project_caches():
            return _main(paths, output_format, select, extend_select, ignore, exit_zero, settings_file, baseline,
                         write_baseline, frontend, fix, diff, stream, False)
    options = LintOptions(
        paths=list(paths) or [Path(".")],
        overrides=Overrides(select=_split(select) if select else None, extend_select=_split(extend_select),
                            ignore=_split(ignore)),
        settings_file=settings_file, baseline=baseline, write_baseline=write_baseline, frontend=frontend,
        every_cda_mode=fix or diff)
    try:
        outcome = run(options)
    except (LintError, BaselineError) as exc:
        print(f"txscan: error: {exc}", file=sys.stderr)
        return ERROR
    except Exception as exc:  # noqa: BLE001 - an internal error is one line and status 2, never a traceback
        where = traceback.extract_tb(exc.__traceback__)[-1]
        print(f"txscan: error: internal error: {type(exc).__name__}: {exc} "
              f"({Path(where.filename).name}:{where.lineno})", file=sys.stderr)
        return ERROR
    if fix or diff:
        try:
            outcome, early = _fix(options, outcome, diff, stream)
        except LintError as exc:
            print(f"txscan: error: {exc}", file=sys.stderr)
            return ERROR
        if early is not None:
            return early
    with timing.phase("lint-output"):
        RENDERERS[output_format](outcome, stream, use_colour(stream) and output_format in ("concise", "full"))
    if outcome.baseline_written is not None:
        print(f"txscan: wrote {outcome.baseline_written} finding(s) to the baseline {write_baseline}", file=sys.stderr)
        return CLEAN
    return CLEAN if exit_zero or not outcome.findings else FINDINGS


def _fix(options: LintOptions, outcome, diff_only: bool, stream):
    """Apply (or, with --diff, show) the verified rewrites; after --fix, lint again."""
    from . import fixes

    fix_plan = fixes.plan(outcome)
    if diff_only:
        text = fixes.unified_diff(fix_plan)
        stream.write(text)
        print(f"txscan: {len(fix_plan.fixed)} fixable finding(s)"
              f"{'' if fix_plan.fixed else ' (none has a verified fix)'}", file=sys.stderr)
        return outcome, FINDINGS if text else CLEAN
    fixes.write(outcome, fix_plan)
    for title in fix_plan.titles:
        print(f"fixed {title}", file=sys.stderr)
    print(f"txscan: fixed {len(fix_plan.fixed)} finding(s) in {len(fix_plan.changed)} file(s)", file=sys.stderr)
    return (run(options) if fix_plan.changed else outcome), None
