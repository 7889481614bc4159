"""Which project a linted path belongs to: the whole project is analysed, the paths are reported."""

from __future__ import annotations

from pathlib import Path

# Files that mark the root of an application, nearest first wins (ruff and eslint walk up the same way).
ROOT_MARKERS = ("pyproject.toml", "txscan.toml", "package.json", "manage.py", ".git")


class ProjectError(Exception):
    pass


def find_root(path: Path) -> Path:
    """The nearest folder at or above `path` holding a root marker; the path's folder if none does."""
    start = path.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate
    return folder


def project_root(paths: list[Path]) -> Path:
    """The one project all paths belong to (lint analyses one application per run)."""
    roots = {find_root(p) for p in paths}
    if len(roots) > 1:
        names = ", ".join(sorted(str(r) for r in roots))
        raise ProjectError(f"the paths belong to different projects ({names}); lint one project per run")
    return roots.pop()


def relative_targets(root: Path, paths: list[Path]) -> list[str]:
    """The given paths relative to the root ("" is the whole project), "/"-separated."""
    out = []
    for path in paths:
        rel = path.resolve().relative_to(root).as_posix()
        out.append("" if rel == "." else rel)
    return sorted(set(out))


def is_target(rel: str, targets: list[str]) -> bool:
    return any(t == "" or rel == t or rel.startswith(t + "/") for t in targets)
