"""One lint run: analyse the project, run the enabled rules, keep what the paths and comments allow."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import config as config_mod, timing
from ..scan import ScanResult
from . import baseline as baseline_mod
from .context import LintContext
from .model import Finding, Rule
from .project import ProjectError, is_target, project_root, relative_targets
from .rules import REGISTRY, UNUSED_SUPPRESSION
from .settings import Overrides, SettingsError, SettingsFinder, enabled_codes, ignored_for_file
from .suppressions import Suppressions


class LintError(Exception):
    """A usage, configuration or input problem: one line, exit status 2."""


@dataclass
class LintOptions:
    paths: list[Path]
    overrides: Overrides = field(default_factory=Overrides)
    settings_file: Path | None = None
    baseline: Path | None = None
    write_baseline: Path | None = None
    frontend: str | None = None
    # --fix and --diff plan rewrites from the suggestions of every CDA mode, as `txscan scan`
    # does; the rules read only the project's own mode, so a plain lint works out that one alone
    every_cda_mode: bool = False


@dataclass
class LintOutcome:
    root: Path
    frontend: str
    findings: list[Finding]
    rules: list[Rule]                   # the rules that ran (enabled somewhere in the paths)
    notes: list[str]                    # what the analysis could not see, tied to files and transactions
    baselined: int = 0
    suppressed: int = 0
    seconds: float = 0.0
    context: LintContext | None = None
    baseline_written: int | None = None


def _check_paths(paths: list[Path]) -> None:
    for path in paths:
        if not path.exists():
            raise LintError(f"{path} does not exist")


def run(options: LintOptions, scan_result: ScanResult | None = None) -> LintOutcome:
    """Lint; `scan_result` lets a caller that already scanned the project (tests, --fix) reuse it."""
    from ..cache import ScanCache, default_for
    from ..scan import CDA_MODES, scan
    from ..typeorm.bridge import FrontendUnavailable

    started = time.perf_counter()
    paths = options.paths or [Path(".")]
    _check_paths(paths)
    try:
        root = project_root(paths)
    except ProjectError as exc:
        raise LintError(str(exc)) from exc
    targets = relative_targets(root, paths)
    try:
        options.overrides.validate()
        finder = SettingsFinder(root, options.settings_file)
        finder.for_folder(root)
        for target in targets:
            folder = root / target
            finder.for_folder(folder if folder.is_dir() else folder.parent)
    except SettingsError as exc:
        raise LintError(str(exc)) from exc
    previous = baseline_mod.load(options.baseline) if options.baseline else None
    try:
        config = config_mod.load(root)
    except config_mod.ConfigError as exc:
        raise LintError(str(exc)) from exc
    if scan_result is None:
        # Rules are about explicit transactions (no autocommit statements) and never read the
        # rewrites a scan attaches to its suggestions: --fix verifies those of the transactions it
        # fixes (rewrite.rewrites_for), reusing the scan's work kept in the cache.
        cache = default_for(root) or ScanCache()
        modes = CDA_MODES if options.every_cda_mode else (config.cda,)
        try:
            scan_result = scan(root, config, options.frontend, rewrites=False, cache=cache, autocommit=False,
                               cda_modes=modes, excerpts=False)  # the rules read the files, not excerpts
        except FrontendUnavailable as exc:
            raise LintError(str(exc)) from exc
    ctx = LintContext(root, scan_result, config.cda, targets)

    enabled_cache: dict[str, frozenset[str]] = {}

    def enabled_for(path: str) -> frozenset[str]:
        if path not in enabled_cache:
            try:
                settings = finder.for_folder((root / path).parent)
                enabled_cache[path] = (enabled_codes(settings, options.overrides)
                                       - ignored_for_file(settings, root, path))
            except SettingsError as exc:
                raise LintError(str(exc)) from exc
        return enabled_cache[path]

    ran = [rule for rule in REGISTRY.values() if ctx.frontend in rule.frontends]
    raw: list[tuple[tuple, Finding]] = []
    reportable = _reportable_codes(root, targets, enabled_for)
    with timing.phase("lint-rules"):
        for rule in ran:
            if reportable is not None and rule.code not in reportable:
                continue  # its findings would all be dropped below: not enabled where they can be
            for finding in rule.check(ctx):
                if is_target(finding.location.path, targets) and rule.code in enabled_for(finding.location.path):
                    order = (finding.boundary.path, finding.boundary.line) if finding.boundary else ("", 0)
                    raw.append((order, finding))
    # A helper reached from several transactions is one finding, named after the first transaction.
    unique: dict[tuple, Finding] = {}
    for _order, finding in sorted(raw, key=lambda item: (item[1].sort_key, item[0])):
        loc = finding.location
        unique.setdefault((finding.code, loc.path, loc.line, loc.col), finding)

    suppressions = Suppressions(ctx.lines)
    kept, suppressed = [], 0
    for finding in unique.values():
        if suppressions.silences(finding):
            suppressed += 1
        else:
            kept.append(finding)
    target_files = ctx.target_files((".py", ".ts", ".tsx", ".mts", ".cts"))
    kept += [f for f in suppressions.unused(target_files, set(REGISTRY), enabled_for)
             if UNUSED_SUPPRESSION in enabled_for(f.location.path)]
    kept.sort(key=lambda f: f.sort_key)

    baselined = 0
    if previous is not None:
        remaining = Counter(previous)
        fresh = []
        for finding in kept:
            k = baseline_mod.key(finding, ctx.line_text(finding.location.path, finding.location.line))
            if remaining[k] > 0:
                remaining[k] -= 1
                baselined += 1
            else:
                fresh.append(finding)
        kept = fresh
    written = None
    if options.write_baseline is not None:
        keys = [baseline_mod.key(f, ctx.line_text(f.location.path, f.location.line)) for f in kept]
        try:
            options.write_baseline.write_text(baseline_mod.dumps(keys), encoding="utf-8")
        except OSError as exc:
            raise LintError(f"cannot write the baseline {options.write_baseline}: {exc.strerror}") from exc
        written = len(keys)

    codes_in_play = set().union(*(enabled_for(p) for p in target_files)) if target_files else set()
    return LintOutcome(
        root=root, frontend=ctx.frontend, findings=kept,
        rules=[r for r in ran if r.code in codes_in_play or any(f.code == r.code for f in kept)],
        notes=_notes(ctx), baselined=baselined, suppressed=suppressed,
        seconds=time.perf_counter() - started, context=ctx, baseline_written=written)


def _reportable_codes(root: Path, targets: list[str], enabled_for) -> frozenset[str] | None:
    """The codes a finding can be reported under when every linted path is a file (a finding is
    kept only at a linted path, under a code enabled there); None when a folder is linted (its
    files' settings are looked up as findings come)."""
    if any(not target or not (root / target).is_file() for target in targets):
        return None
    return frozenset().union(*(enabled_for(target) for target in targets))


def _notes(ctx: LintContext) -> list[str]:
    """Where the analysis went blind inside the linted paths: absent findings there prove nothing."""
    notes = []
    for diag in ctx.diagnostics:
        if diag["severity"] == "error" and is_target(diag["file"], ctx.targets):
            notes.append(f"{diag['file']}:{diag['line']}: not analysed ({diag['code']}): {diag['message']}")
    incomplete = [t for t in ctx.transactions if is_target(t.record["file"], ctx.targets) and t.incomplete]
    if incomplete:
        notes.append(f"{len(incomplete)} transaction(s) in these paths call code txscan could not follow; "
                     "findings inside that code are not reported (see `txscan scan --format json`)")
    return notes
