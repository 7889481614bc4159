"""`txscan lint`: transaction bugs as findings with rule codes, for CI and pre-commit.

The whole project is analysed (verdicts are interprocedural); rules turn the scan's verdicts,
IR and front-end diagnostics (plus a cheap syntax pass for hygiene rules) into findings at the
offending call, which the runner filters by path, settings, suppressions and baseline and the
formats render.
"""

from .runner import LintError, LintOptions, LintOutcome, run

__all__ = ["LintError", "LintOptions", "LintOutcome", "run"]
