"""`--format concise`: one line per finding, `path:line:col: TX101 message` (no wrapping)."""

from __future__ import annotations

from .common import Paint, display_path, summary_line


def render(outcome, stream, colour: bool) -> None:
    paint = Paint(colour)
    for f in outcome.findings:
        loc = f.location
        stream.write(f"{paint.bold(display_path(outcome, loc.path))}:{loc.line}:{loc.col}: "
                     f"{paint.red(f.code)} {f.message}\n")
    for note in outcome.notes:
        stream.write(f"note: {note}\n")
    stream.write(summary_line(outcome) + "\n")
