"""`[tool.txscan.lint]` (pyproject.toml) or `[lint]` (txscan.toml): which rules run where.

    [tool.txscan.lint]
    select = ["TX1", "TX301"]        # replaces the default set (codes or prefixes; "ALL")
    extend-select = ["TX201"]        # adds to it
    ignore = ["TX104"]               # removes from it
    [tool.txscan.lint.per-file-ignores]
    "legacy/*.py" = ["TX101"]        # globs relative to the file holding the settings

The settings file nearest to a linted file wins (txscan.toml before pyproject.toml in the same
folder; a pyproject.toml without the section does not count), as in ruff. Command-line
`--select` replaces the file's `select`; `--extend-select` and `--ignore` add to the file's.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .rules import REGISTRY

KEYS = ("select", "extend-select", "ignore", "per-file-ignores")


class SettingsError(Exception):
    pass


@dataclass(frozen=True)
class LintSettings:
    folder: Path | None = None                # where the settings file is (per-file-ignores are relative to it)
    source: str = ""                          # the file, for messages
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)


def expand(selector: str, where: str) -> set[str]:
    """Rule codes a selector names: a code, a prefix (`TX1`, `TX`) or `ALL`."""
    selector = selector.strip().upper()
    if selector == "ALL":
        return set(REGISTRY)
    codes = {code for code in REGISTRY if code.startswith(selector)}
    if not codes:
        raise SettingsError(f"{where}: unknown rule code or prefix {selector!r}")
    return codes


def _codes(value, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where}: {key} must be a list of rule codes")
    for selector in value:
        expand(selector, where)
    return tuple(value)


def parse(section: dict, path: Path, where: str) -> LintSettings:
    if not isinstance(section, dict):
        raise SettingsError(f"{where} must be a table")
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        raise SettingsError(f"{where}: unknown key {unknown[0]!r} (expected one of {', '.join(KEYS)})")
    per_file = section.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise SettingsError(f"{where}: per-file-ignores must be a table of glob = [codes]")
    return LintSettings(
        folder=path.parent,
        source=str(path),
        select=_codes(section["select"], "select", where) if "select" in section else None,
        extend_select=_codes(section.get("extend-select", []), "extend-select", where),
        ignore=_codes(section.get("ignore", []), "ignore", where),
        per_file_ignores={glob: _codes(codes, f"per-file-ignores[{glob!r}]", where)
                          for glob, codes in sorted(per_file.items())},
    )


def _section(path: Path) -> dict | None:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from exc
    if path.name == "txscan.toml":
        return data.get("lint", {})
    return data.get("tool", {}).get("txscan", {}).get("lint")


def load_file(path: Path) -> LintSettings | None:
    section = _section(path)
    if section is None:
        return None
    where = f"{path}: [lint]" if path.name == "txscan.toml" else f"{path}: [tool.txscan.lint]"
    return parse(section, path, where)


class SettingsFinder:
    """The nearest settings for each folder under the project root, read once per file."""

    def __init__(self, root: Path, explicit: Path | None = None):
        self.root = root
        self.explicit = load_file(explicit) or LintSettings(source=str(explicit)) if explicit else None
        self._cache: dict[Path, LintSettings] = {}

    def for_folder(self, folder: Path) -> LintSettings:
        if self.explicit is not None:
            return self.explicit
        if folder in self._cache:
            return self._cache[folder]
        found = None
        for name in ("txscan.toml", "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file():
                found = load_file(candidate)
                if found is not None:
                    break
        if found is None:
            found = self.for_folder(folder.parent) if folder != self.root and self.root in folder.parents else LintSettings()
        self._cache[folder] = found
        return found


@dataclass(frozen=True)
class Overrides:
    """What the command line says about rule selection."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def validate(self) -> None:
        for selector in (*(self.select or ()), *self.extend_select, *self.ignore):
            expand(selector, "command line")


def enabled_codes(settings: LintSettings, overrides: Overrides) -> frozenset[str]:
    select = overrides.select if overrides.select is not None else settings.select
    if select is None:
        codes = {code for code, rule in REGISTRY.items() if rule.enabled_by_default}
    else:
        codes = set().union(*(expand(s, "select") for s in select)) if select else set()
    for selector in (*settings.extend_select, *overrides.extend_select):
        codes |= expand(selector, "extend-select")
    for selector in (*settings.ignore, *overrides.ignore):
        codes -= expand(selector, "ignore")
    return frozenset(codes)


def ignored_for_file(settings: LintSettings, root: Path, rel: str) -> frozenset[str]:
    """Codes per-file-ignores turn off for one file (path relative to the project root)."""
    if not settings.per_file_ignores or settings.folder is None:
        return frozenset()
    try:
        local = (root / rel).relative_to(settings.folder).as_posix()
    except ValueError:
        local = rel
    codes: set[str] = set()
    for glob, selectors in settings.per_file_ignores.items():
        if fnmatch.fnmatch(local, glob) or fnmatch.fnmatch(local, glob.rstrip("/") + "/*"):
            for selector in selectors:
                codes |= expand(selector, "per-file-ignores")
    return frozenset(codes)
