"""on-commit: external calls moved into transaction.on_commit, only where that is safe."""

from textwrap import dedent

from django_projects import write

from analyzer.rewrite import checks


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


def test_a_call_in_a_nested_block_of_the_projects_own_atomic_wrapper_is_not_moved(tmp_path):
    app = write(tmp_path, """\
        from contextlib import contextmanager

        from django.core.mail import send_mail
        from django.db import transaction

        from bank.models import Account


        @contextmanager
        def guarded():
            with transaction.atomic():
                yield


        @transaction.atomic
        def close(account_id):
            Account.objects.filter(pk=account_id).delete()
            with guarded():
                send_mail("Closed", "Bye.", None, ["owner@example.com"])
    """)
    _result, found = app.candidates()
    [outer] = [c for c in found if c.transaction == "bank/services.py:15" and c.suggestion[0] == "on-commit"]
    assert outer.rewrite is None and "nested atomic block (a savepoint)" in outer.refused


STATEMENT_MODELS = """\
from django.db import models


class Statement(models.Model):
    month = models.CharField(max_length=7)
    pdf = models.FileField(upload_to="statements")
"""


def test_a_file_field_save_that_also_saves_the_row_is_not_moved(tmp_path):
    """FieldFile.save(name, content) writes the file and then saves the row: deferring it would
    move a database write out of the transaction. With save=False only the file moves."""
    app = write(tmp_path, dedent("""\
        from django.db import transaction

        from bank.models import Statement


        @transaction.atomic
        def attach(statement_id, name, content):
            statement = Statement.objects.select_for_update().get(pk=statement_id)
            statement.pdf.save(name, content)
    """), models=STATEMENT_MODELS)
    candidate = app.only("on-commit")
    assert candidate.rewrite is None
    assert "also saves its row" in candidate.refused


def test_a_file_field_delete_without_the_row_is_moved(tmp_path):
    app = write(tmp_path, dedent("""\
        from django.db import transaction

        from bank.models import Statement


        @transaction.atomic
        def drop(statement_id):
            statement = Statement.objects.select_for_update().get(pk=statement_id)
            statement.pdf.delete(save=False)
            Statement.objects.filter(pk=statement_id).delete()
    """), models=STATEMENT_MODELS)
    after, _candidate = app.rewritten("on-commit")
    assert "transaction.on_commit(lambda: statement.pdf.delete(save=False))" in after


def test_statement_splice_equals_regenerating_the_module():
    """The on-commit edit is spliced into the text at the statement's line; it must give what
    replacing the node and regenerating the whole module gives, and decline (None) where the
    statement's code is not found verbatim at that line (a call continued over several lines
    inside a block: libcst writes its continuation lines relative to the block's indentation)."""
    import libcst as cst

    from analyzer.rewrite import python_on_commit
    from analyzer.rewrite.edits import diff_edits, diff_replaced_lines

    text = dedent("""\
        from django.db import transaction


        def close(account_id, notify):
            with transaction.atomic():
                if notify:
                    # tell the owner
                    notify_owner(account_id, "closed")  # after the delete
                    notify_admin(   # call
                        account_id,
                    )
                done = 1
    """)
    module = cst.parse_module(text)
    single, multi = [node for node in _walk(module)
                     if isinstance(node, cst.SimpleStatementLine) and isinstance(node.body[0], cst.Expr)]

    def deferred(statement):
        call = statement.body[0].value
        on_commit = cst.Call(func=cst.Attribute(cst.Name("transaction"), cst.Name("on_commit")),
                             args=[cst.Arg(cst.Lambda(params=cst.Parameters(), body=call))])
        return statement.with_changes(body=[statement.body[0].with_changes(value=on_commit)])

    first, last, replacement = python_on_commit._replaced_lines(text, module, single, deferred(single), 8)
    lines = text.splitlines(keepends=True)
    spliced = "".join(lines[:first]) + replacement + "".join(lines[last:])
    assert spliced == module.deep_replace(single, deferred(single)).code
    assert replacement == '            transaction.on_commit(lambda: notify_owner(account_id, "closed"))  # after the delete\n'
    assert diff_replaced_lines("f.py", text, first, last, replacement) == diff_edits("f.py", text, spliced)
    assert python_on_commit._replaced_lines(text, module, single, deferred(single), 7) is None
    assert python_on_commit._replaced_lines(text, module, single, deferred(single), None) is None
    assert python_on_commit._replaced_lines(text, module, multi, deferred(multi), 9) is None


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)
