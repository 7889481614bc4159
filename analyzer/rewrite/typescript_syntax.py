"""Syntax facts about TypeScript files from the TypeScript parser (ts-plugin's rewrite-check.js,
run with node): parse errors, the calls on a line, the enclosing functions, the block's
statements. Offsets come back in UTF-16 code units and are converted to string indexes here."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess

from ..typeorm import bridge


class Unavailable(Exception):
    pass


def _script():
    script = bridge.plugin_path().with_name("rewrite-check.js")
    node = shutil.which("node")
    if node is None or not script.is_file():
        raise Unavailable("node or ts-plugin's rewrite-check.js is not available to check TypeScript")
    return node, script


@functools.lru_cache(maxsize=256)
def facts(path: str, text: str, line: int | None = None) -> dict:
    node, script = _script()
    request = {"path": path, "text": text, **({"line": line} if line is not None else {})}
    completed = subprocess.run([node, str(script)], input=json.dumps({"files": [request]}), capture_output=True,
                               text=True, encoding="utf-8", timeout=300, check=False)
    if completed.returncode != 0:
        raise Unavailable(f"rewrite-check failed: {completed.stderr.strip()[:500]}")
    result = json.loads(completed.stdout)["files"][0]
    return _to_indexes(result, text)


def parse_errors(path: str, text: str) -> list[str]:
    return facts(path, text)["errors"]


def _to_indexes(value, text: str):
    """Replace UTF-16 `start`/`end` offsets by Python string indexes (they differ after a character
    outside the Basic Multilingual Plane)."""
    if all(ord(c) <= 0xFFFF for c in text):
        return value
    index, units = {}, 0
    for i, char in enumerate(text):
        index[units] = i
        units += 2 if ord(char) > 0xFFFF else 1
    index[units] = len(text)

    def convert(v):
        if isinstance(v, dict):
            return {k: index.get(x, x) if k in ("start", "end") and isinstance(x, int) else convert(x)
                    for k, x in v.items()}
        if isinstance(v, list):
            return [convert(x) for x in v]
        return v
    return convert(value)


def whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the full lines holding [start, end) when nothing else shares them."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if text[line_start:start].strip() or text[end:line_end].strip():
        return start, end
    return line_start, line_end


def indentation(text: str, start: int) -> str:
    line_start = text.rfind("\n", 0, start) + 1
    return text[line_start:start]
