"""on-commit: external calls moved into transaction.on_commit, only where that is safe."""

from textwrap import dedent

from analyzer.rewrite import checks

from django_projects import write


def test_send_mail_moves_into_on_commit_keeping_comments(tmp_path):
    app = write(tmp_path, """\
        from django.core.mail import send_mail
        from django.db import transaction

        from bank.models import Account


        def close(account_id):
            with transaction.atomic():
                Account.objects.filter(pk=account_id).delete()
                # tell the owner
                send_mail("Closed", "Your account is closed.", None, ["owner@example.com"])  # after the delete
    """)
    after, candidate = app.rewritten("on-commit")
    assert after == dedent("""\
        from django.core.mail import send_mail
        from django.db import transaction

        from bank.models import Account


        def close(account_id):
            with transaction.atomic():
                Account.objects.filter(pk=account_id).delete()
                # tell the owner
                transaction.on_commit(lambda: send_mail("Closed", "Your account is closed.", None, ["owner@example.com"]))  # after the delete
    """)
    assert candidate.rewrite.claim == "django.core.mail.send_mail (email) no longer runs inside the transaction"
    assert checks.python_parses("bank/services.py", after) is None


def test_delay_moves_and_re_analysis_finds_the_transaction_one_shot(tmp_path):
    app = write(tmp_path, """\
        from django.db import transaction

        from bank.models import Account
        from bank.tasks import audit


        @transaction.atomic
        def rename(account_id, number):
            Account.objects.filter(pk=account_id).update(number=number)
            audit.delay(account_id)
    """)
    after, candidate = app.rewritten("on-commit")
    assert "    transaction.on_commit(lambda: audit.delay(account_id))\n" in after
    assert candidate.makes_one_shot is True


def test_makes_one_shot_is_computed_not_assumed(tmp_path):
    # The read-modify-write stays after the effect moves: re-analysis says non-strict, not one-shot.
    app = write(tmp_path, """\
        from django.db import transaction

        from bank.models import Account
        from bank.tasks import audit


        @transaction.atomic
        def bump(account_id):
            account = Account.objects.get(pk=account_id)
            Account.objects.filter(pk=account_id).update(balance=account.balance + 1)
            audit.delay(account_id)
    """)
    _after, candidate = app.rewritten("on-commit")
    assert candidate.makes_one_shot is False


def test_the_transaction_import_is_added_when_only_atomic_is_imported(tmp_path):
    app = write(tmp_path, """\
        \"\"\"Account services.\"\"\"
        from django.db.transaction import atomic

        from bank.models import Account
        from bank.tasks import audit


        @atomic
        def rename(account_id, number):
            Account.objects.filter(pk=account_id).update(number=number)
            audit.apply_async(args=[account_id], countdown=5)
    """)
    after, _candidate = app.rewritten("on-commit")
    assert after == dedent("""\
        \"\"\"Account services.\"\"\"
        from django.db.transaction import atomic

        from bank.models import Account
        from bank.tasks import audit
        from django.db import transaction


        @atomic
        def rename(account_id, number):
            Account.objects.filter(pk=account_id).update(number=number)
            transaction.on_commit(lambda: audit.apply_async(args=[account_id], countdown=5))
    """)


def _refusal(tmp_path, body: str) -> str:
    app = write(tmp_path, dedent("""\
        from django.core.mail import send_mail
        from django.db import transaction

        from bank.models import Account
    """) + dedent(body))
    candidate = app.only("on-commit")
    assert candidate.rewrite is None
    return candidate.refused


def test_a_call_in_a_savepoint_that_may_roll_back_is_not_moved(tmp_path):
    refused = _refusal(tmp_path, """

        @transaction.atomic
        def close(account_id):
            Account.objects.filter(pk=account_id).delete()
            with transaction.atomic():
                send_mail("Closed", "Bye.", None, ["owner@example.com"])
    """)
    assert "nested atomic block (a savepoint)" in refused


def test_a_call_in_a_loop_is_not_moved(tmp_path):
    refused = _refusal(tmp_path, """

        @transaction.atomic
        def close_all(emails):
            Account.objects.all().delete()
            for email in emails:
                send_mail("Closed", "Bye.", None, [email])
    """)
    assert "runs in a loop" in refused


def test_a_call_under_try_is_not_moved(tmp_path):
    refused = _refusal(tmp_path, """

        @transaction.atomic
        def close(account_id):
            Account.objects.filter(pk=account_id).delete()
            try:
                send_mail("Closed", "Bye.", None, ["owner@example.com"])
            except OSError:
                pass
    """)
    assert "runs under try" in refused


def test_a_call_whose_result_is_used_is_not_moved(tmp_path):
    refused = _refusal(tmp_path, """

        @transaction.atomic
        def close(account_id):
            Account.objects.filter(pk=account_id).delete()
            sent = send_mail("Closed", "Bye.", None, ["owner@example.com"])
            return sent
    """)
    assert "the result of send_mail is used" in refused


def test_a_call_reading_a_name_assigned_later_is_not_moved(tmp_path):
    refused = _refusal(tmp_path, """

        @transaction.atomic
        def close(account_id):
            address = "owner@example.com"
            Account.objects.filter(pk=account_id).delete()
            send_mail("Closed", "Bye.", None, [address])
            address = None
    """)
    assert "address is assigned again after the call" in refused
