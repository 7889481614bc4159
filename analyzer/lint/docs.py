"""Rule documentation generated from the rules themselves: docs/rules/<name>.md and SARIF help.

    python -m analyzer.lint.docs            # rewrite docs/rules/
    python -m analyzer.lint.docs --check    # exit 1 if docs/rules/ is stale (CI and tests)
"""

from __future__ import annotations

import sys
from pathlib import Path

from .model import Rule
from .rules import REGISTRY


def _code_block(code: str, language: str) -> str:
    return f"```{language}\n{code.rstrip()}\n```\n"


def render_markdown(rule: Rule) -> str:
    doc = rule.doc
    default = "on" if rule.enabled_by_default else "off"
    parts = [
        f"# {rule.code} {rule.name}\n",
        f"{rule.summary}.\n\n",
        f"- Default: {default}; level: {rule.level}; precision: {rule.precision}; "
        f"front ends: {', '.join(rule.frontends)}; tags: {', '.join(rule.tags)}\n",
        f"- `--fix`: {'verified rewrites (' + ', '.join(rule.fix_kinds) + ') where one exists' if rule.fixable else 'no (the fix is described in prose)'}\n",
    ]
    if doc.default_reason:
        parts.append(f"\n{doc.default_reason}\n")
    parts += ["\n## What it does\n\n", doc.what + "\n", "\n## Why is this bad?\n\n", doc.why + "\n"]
    if "django" in rule.frontends:
        parts += ["\n## Example (Django)\n\n", _code_block(doc.example, "python"),
                  "\nUse instead:\n\n", _code_block(doc.use_instead, "python")]
    if doc.example_typeorm and "typeorm" in rule.frontends:
        parts += ["\n## Example (TypeORM)\n\n", _code_block(doc.example_typeorm, "ts"),
                  "\nUse instead:\n\n", _code_block(doc.use_instead_typeorm, "ts")]
    parts += ["\n## Fix\n\n", doc.fix + "\n"]
    parts += ["\n## Suppressing\n\n",
              f"`# noqa: {rule.code}` or `# txscan: ignore[{rule.code}]` on the line (Python); "
              f"`// txscan-ignore {rule.code}` on the line or `// txscan-ignore-next-line {rule.code}` above it "
              "(TypeScript).\n"]
    return "".join(parts)


def render_index() -> str:
    lines = ["# txscan lint rules\n", "Generated from analyzer/lint/rules/ by `python -m analyzer.lint.docs`; "
             "do not edit by hand.\n", "| code | name | default | precision | summary |", "|---|---|---|---|---|"]
    for code, rule in sorted(REGISTRY.items()):
        lines.append(f"| {code} | [{rule.name}]({rule.name}.md) | {'on' if rule.enabled_by_default else 'off'} | "
                     f"{rule.precision} | {rule.summary} |")
    return "\n".join(lines) + "\n"


def expected_files() -> dict[str, str]:
    files = {f"{rule.name}.md": render_markdown(rule) for rule in REGISTRY.values()}
    files["README.md"] = render_index()
    return files


def stale(folder: Path) -> list[str]:
    """Files of docs/rules/ that differ from what the rules generate (or should not be there)."""
    expected = expected_files()
    problems = [name for name, text in sorted(expected.items())
                if not (folder / name).is_file() or (folder / name).read_text("utf-8") != text]
    present = {p.name for p in folder.glob("*.md")} if folder.is_dir() else set()
    problems += sorted(present - set(expected))
    return problems


def write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    expected = expected_files()
    for path in folder.glob("*.md"):
        if path.name not in expected:
            path.unlink()
    for name, text in expected.items():
        (folder / name).write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    folder = Path(__file__).resolve().parents[2] / "docs" / "rules"
    if "--check" in argv:
        problems = stale(folder)
        for name in problems:
            print(f"docs/rules/{name} is stale: run python -m analyzer.lint.docs", file=sys.stderr)
        return 1 if problems else 0
    write(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
