"""A temporary copy of a scanned project with edits applied, for re-analysis.

Only source and configuration files are copied (the front ends read nothing else); a
`node_modules` folder is linked, not copied. The original tree is never written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .edits import apply, edits_by_path

_COPIED = (".py", ".pyi", ".ts", ".tsx", ".mts", ".cts", ".d.ts", ".json", ".toml", ".cfg", ".ini")
_SKIPPED = {".git", ".txscan", ".venv", "venv", "node_modules", "__pycache__", "dist", "build"}


@contextmanager
def edited_copy(root: Path, edits):
    with tempfile.TemporaryDirectory(prefix="txscan-rewrite-") as tmp:
        copy = Path(tmp) / root.resolve().name
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED)
            target = copy / Path(dirpath).relative_to(root)
            target.mkdir(parents=True, exist_ok=True)
            for name in filenames:
                if name.endswith(_COPIED):
                    shutil.copyfile(Path(dirpath) / name, target / name)
        if (root / "node_modules").is_dir():
            os.symlink((root / "node_modules").resolve(), copy / "node_modules", target_is_directory=True)
        for path, text in edited_texts(root, edits).items():
            (copy / path).write_text(text, "utf-8")
        yield copy


def edited_texts(root: Path, edits) -> dict[str, str]:
    """The edited files' texts (path under `root` -> text), as the copy holds them."""
    return {path: apply((root / path).read_text("utf-8"), file_edits) for path, file_edits in edits_by_path(edits).items()}
