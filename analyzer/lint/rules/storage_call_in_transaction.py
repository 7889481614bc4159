"""TX104 storage-call-in-transaction."""

from __future__ import annotations

from ..effects import after_commit_fix, effect_findings, short
from ..model import Rule, RuleDoc

_CATEGORIES = ("storage", "file")
# Creating a folder is idempotent and harmless to leave behind after a rollback.
_HARMLESS = ("mkdir", "makedirs")


def check(ctx):
    yield from effect_findings(
        ctx, RULE.code, lambda step: step["category"] in _CATEGORIES and not step["callee"].endswith(_HARMLESS),
        lambda step: f"{step['category']} operation `{short(step['callee'])}` inside a transaction: it is not "
                     "undone when the transaction rolls back",
        after_commit_fix)


RULE = Rule(
    code="TX104",
    name="storage-call-in-transaction",
    summary="File or object-storage operation inside a database transaction",
    doc=RuleDoc(
        what="Finds file-system changes (`os.remove`, `os.rename`, writes) and object-storage calls (Django "
             "storages, S3, GCS, Azure) while a database transaction is open.",
        why="Files are outside the transaction: a rollback leaves a deleted file whose row is back, or an "
            "uploaded object nobody references. Storage calls are also slow network calls that keep the "
            "transaction's locks.",
        example="""\
@transaction.atomic
def delete_document(pk):
    document = Document.objects.get(pk=pk)
    os.remove(document.path)
    document.delete()""",
        use_instead="""\
@transaction.atomic
def delete_document(pk):
    document = Document.objects.get(pk=pk)
    document.delete()
    transaction.on_commit(lambda: os.remove(document.path))""",
        example_typeorm="""\
await dataSource.transaction(async (manager) => {
  await manager.delete(Document, { id });
  await fs.promises.unlink(path);
});""",
        use_instead_typeorm="""\
await dataSource.transaction((manager) => manager.delete(Document, { id }));
await fs.promises.unlink(path);""",
        fix="Do the file or storage work after commit (`transaction.on_commit`), or before the transaction when "
            "its result is needed, with a clean-up job for orphans.",
    ),
    check=check,
    fix_kinds=("on-commit",),
    tags=("interactivity", "external-call", "storage"),
)
