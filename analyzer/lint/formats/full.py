"""`--format full`: each finding with its rule, the transaction, the call chain, the code and the fix."""

from __future__ import annotations

from .common import Paint, display_path, line_text, rule_of, summary_line


def render(outcome, stream, colour: bool) -> None:
    paint = Paint(colour)
    for f in outcome.findings:
        loc = f.location
        rule = rule_of(f)
        stream.write(f"{paint.bold(display_path(outcome, loc.path))}:{loc.line}:{loc.col}: "
                     f"{paint.red(f.code)} [{rule.name}] {f.message}\n")
        code = line_text(outcome, loc)
        if code:
            gutter = str(loc.line)
            stream.write(f"  {' ' * len(gutter)} |\n  {paint.dim(gutter)} | {code.rstrip()}\n"
                         f"  {' ' * len(gutter)} | {' ' * (loc.col - 1)}{paint.red('^')}\n")
        if f.boundary is not None:
            stream.write(f"  transaction: {display_path(outcome, f.boundary.path)}:{f.boundary.line} "
                         f"({f.boundary.label})\n")
        if len(f.chain) > 1:
            stream.write("  call chain:\n")
            for step in f.chain:
                stream.write(f"    {display_path(outcome, step.path)}:{step.line}:{step.col}  {step.label}\n")
        if f.fix:
            stream.write(f"  {paint.cyan('fix')}: {f.fix}\n")
        stream.write("\n")
    for note in outcome.notes:
        stream.write(f"note: {note}\n")
    stream.write(summary_line(outcome) + "\n")
