"""TX900 unused-suppression (reported by the runner, which knows what each suppression matched)."""

from __future__ import annotations

from ..model import Rule, RuleDoc


def check(ctx):
    return ()


RULE = Rule(
    code="TX900",
    name="unused-suppression",
    summary="Suppression comment that suppresses nothing",
    doc=RuleDoc(
        what="Finds `# noqa: TXnnn`, `# txscan: ignore[TXnnn]`, `// txscan-ignore TXnnn` and "
             "`// txscan-ignore-next-line TXnnn` comments naming an enabled rule that reports nothing on that "
             "line, or naming a code that does not exist (like ruff's RUF100).",
        why="A stale suppression hides the next real finding on that line, and tells readers a problem exists "
            "where none does.",
        example="""\
@transaction.atomic
def rename(pk, name):
    Product.objects.filter(pk=pk).update(name=name)  # noqa: TX101""",
        use_instead="""\
@transaction.atomic
def rename(pk, name):
    Product.objects.filter(pk=pk).update(name=name)""",
        example_typeorm="""\
await manager.update(Product, { id }, { name }); // txscan-ignore TX101""",
        use_instead_typeorm="""\
await manager.update(Product, { id }, { name });""",
        fix="Remove the comment, or the codes in it that no longer match.",
    ),
    check=check,
    precision="very-high",
    tags=("suppression",),
)
