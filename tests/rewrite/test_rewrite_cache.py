"""Rewrites in the warm cache: a re-scan reuses every plan and verification, an edit re-verifies
exactly the rewrites that depend on the edited file, and the outputs are those of a cold scan."""

from pathlib import Path
from textwrap import dedent

from django_projects import write

from analyzer import ir
from analyzer.cache import ScanCache
from analyzer.config import Config
from analyzer.rewrite.attach import code_of
from analyzer.rewrite.plan import step_index
from analyzer.scan import scan

BILLING = """\
    from django.core.mail import send_mail
    from django.db import transaction

    from bank.models import Account


    def close(account_id):
        with transaction.atomic():
            Account.objects.filter(pk=account_id).delete()
            send_mail("Closed", "Your account is closed.", None, ["owner@example.com"])
"""

SERVICES = """\
    from django.db import transaction

    from bank.models import Account, Stamped
    from bank.tasks import audit


    @transaction.atomic
    def rename(account_id, number):
        Account.objects.filter(pk=account_id).update(number=number)
        audit.delay(account_id)


    def deposit(account_id, amount):
        with transaction.atomic():
            account = Account.objects.select_for_update().get(pk=account_id)
            account.balance += amount
            account.save(update_fields=["balance"])


    def touch(stamp_id):
        with transaction.atomic():
            stamp = Stamped.objects.get(pk=stamp_id)
            stamp.count += 1
            stamp.save(update_fields=["count"])
"""


def _project(tmp_path: Path) -> Path:
    root = write(tmp_path, SERVICES).root
    (root / "bank" / "billing.py").write_text(dedent(BILLING))
    return root


def _outcomes(result) -> list:
    """Every candidate's outcome as shown: verified code, or the reason there is none."""
    return [(c.transaction, c.suggestion, c.refused, c.makes_one_shot,
             (c.rewrite.verified, c.rewrite.claim, code_of(c.rewrite), c.rewrite.edits) if c.rewrite else None)
            for c in result.rewrites]


def _scan(root: Path, folder: Path | None):
    return scan(root, Config(), "django", cache=ScanCache(folder) if folder else None)


def _reused(result) -> dict[str, str]:
    return {f"{c.transaction} {c.suggestion[0]}": c.reused for c in result.rewrites if c.rewrite or c.reused}


def test_a_warm_rescan_reuses_every_rewrite_and_shows_the_same(tmp_path):
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    cold = _scan(root, folder)
    verified = [c for c in cold.rewrites if c.rewrite is not None and c.rewrite.verified]
    assert {c.rewrite.kind for c in verified} == {"on-commit", "f-expression"}
    assert all(not c.reused for c in cold.rewrites)
    assert (folder / "rewrites.json").is_file()

    warm = _scan(root, folder)
    built = [c for c in warm.rewrites if c.reused or c.rewrite is not None]
    assert built and all(c.reused == "verified" for c in built if c.rewrite is not None)
    # refused plans (Stamped has auto_now) are reused too, never built again
    assert any(c.reused == "planned" and c.rewrite is None and "auto_now" in c.refused for c in warm.rewrites)
    assert _outcomes(warm) == _outcomes(cold) == _outcomes(_scan(root, None))
    assert ir.dumps(warm.records) == ir.dumps(cold.records)
    assert warm.analyses == cold.analyses


def test_editing_a_file_a_rewrite_touches_reverifies_that_rewrite_only(tmp_path):
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    _scan(root, folder)
    billing = root / "bank" / "billing.py"
    billing.write_text(billing.read_text().replace("def close(", "# closing accounts\n\n\ndef close("))

    warm = _scan(root, folder)
    reused = _reused(warm)
    assert reused["bank/billing.py:11 on-commit"] == ""  # planned and verified again (the file moved it)
    # the others: verifications reused, and the plan refused before verification (auto_now) too
    assert {key: state for key, state in reused.items() if not key.startswith("bank/billing.py")} == {
        "bank/services.py:7 on-commit": "verified", "bank/services.py:14 one-shot": "verified",
        "bank/services.py:21 one-shot": "planned"}
    assert _outcomes(warm) == _outcomes(_scan(root, None))

    again = _scan(root, folder)
    assert set(_reused(again).values()) == {"verified", "planned"}


def test_a_change_the_rewrite_depends_on_is_seen(tmp_path):
    """The f-expression rewrite of deposit() depends on the model (an override of save() makes
    update() unsafe): a warm scan after that change refuses it, as a cold scan does."""
    root = _project(tmp_path)
    folder = tmp_path / "cache"
    cold = _scan(root, folder)
    assert any(c.rewrite and c.rewrite.kind == "f-expression" and c.rewrite.verified for c in cold.rewrites)
    models = root / "bank" / "models.py"
    models.write_text(models.read_text().replace(
        "    owner = models.ForeignKey(Customer, on_delete=models.CASCADE)\n",
        "    owner = models.ForeignKey(Customer, on_delete=models.CASCADE)\n\n"
        "    def save(self, *args, **kwargs):\n        super().save(*args, **kwargs)\n"))

    warm = _scan(root, folder)
    deposit = [c for c in warm.rewrites if c.suggestion[1] == "read-modify-write" and "services.py:14" in c.transaction]
    assert deposit and all(c.rewrite is None and "overrides save()" in c.refused for c in deposit)
    assert _outcomes(warm) == _outcomes(_scan(root, None))


def test_without_a_cache_folder_nothing_is_reused(tmp_path):
    root = _project(tmp_path)
    first, second = _scan(root, None), _scan(root, None)
    assert not any(c.reused for c in first.rewrites + second.rewrites)
    assert _outcomes(first) == _outcomes(second)



def test_editing_a_helper_the_transaction_reaches_reverifies_its_rewrite(tmp_path):
    """The re-analysis of close() walks log_closing() in another file: a change to that file
    re-verifies close()'s rewrite (its claim is about what the walk finds there), and only that one."""
    root = _project(tmp_path)
    (root / "bank" / "helpers.py").write_text(dedent("""\
        from bank.models import Account


        def log_closing(account_id):
            Account.objects.filter(pk=account_id).update(number="closed")
    """))
    billing = root / "bank" / "billing.py"
    billing.write_text(billing.read_text().replace(
        "from bank.models import Account\n", "from bank.helpers import log_closing\nfrom bank.models import Account\n").replace(
        "Account.objects.filter(pk=account_id).delete()\n",
        "Account.objects.filter(pk=account_id).delete()\n        log_closing(account_id)\n"))
    folder = tmp_path / "cache"
    cold = _scan(root, folder)
    close = next(t for t in cold.records if t["type"] == "transaction" and t["id"] == "bank/billing.py:9")
    assert any(s.get("api") == "filter.update" and s["file"] == "bank/helpers.py" for s in step_index(close).values())
    helpers = root / "bank" / "helpers.py"
    # a comment: the transaction's own record does not change (its walk is reused), yet the file
    # the re-analysis read did
    helpers.write_text(helpers.read_text() + "# closed accounts keep their rows\n")

    warm = _scan(root, folder)
    reused = _reused(warm)
    # the plan did not read helpers.py (kept); the verification did (made again)
    assert reused == {"bank/billing.py:9 on-commit": "planned", "bank/services.py:7 on-commit": "verified",
                      "bank/services.py:14 one-shot": "verified", "bank/services.py:21 one-shot": "planned"}
    assert _outcomes(warm) == _outcomes(_scan(root, None))
