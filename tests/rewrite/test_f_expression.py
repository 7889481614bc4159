"""f-expression: a read-modify-write save() becomes one update() computed by the database."""

from textwrap import dedent

from django_projects import write


def test_save_of_an_incremented_field_becomes_update_with_f(tmp_path):
    app = write(tmp_path, """\
        from django.db import transaction

        from bank.models import Account


        @transaction.atomic
        def deposit(account_id, amount):
            account = Account.objects.select_for_update().get(pk=account_id)
            account.balance += amount  # credit
            account.save(update_fields=["balance"])
            return account
    """)
    after, candidate = app.rewritten("f-expression")
    assert after == dedent("""\
        from django.db import transaction

        from bank.models import Account
        from django.db.models import F


        @transaction.atomic
        def deposit(account_id, amount):
            account = Account.objects.select_for_update().get(pk=account_id)
            Account.objects.select_for_update().filter(pk=account_id).update(balance=F("balance") + amount)
            account.refresh_from_db(fields=["balance"])
            return account
    """)
    assert candidate.rewrite.claim == "the Account update no longer depends on a value read in the transaction"
    assert candidate.makes_one_shot is True


def test_the_read_goes_when_nothing_else_uses_the_object(tmp_path):
    app = write(tmp_path, """\
        from django.db import transaction
        from django.db.models import F

        from bank.models import Account


        @transaction.atomic
        def withdraw(account_id, amount):
            account = Account.objects.get(pk=account_id)
            account.balance = account.balance - amount
            account.save(update_fields=["balance"])
    """)
    after, candidate = app.rewritten("f-expression")
    assert after.endswith(dedent("""\
        @transaction.atomic
        def withdraw(account_id, amount):
            Account.objects.filter(pk=account_id).update(balance=F("balance") - amount)
    """))
    assert candidate.makes_one_shot is True


def _refused(tmp_path, services: str) -> str:
    candidate = write(tmp_path, services).only("f-expression")
    assert candidate.rewrite is None
    return candidate.refused


def test_save_of_a_model_with_auto_now_fields_stays_prose(tmp_path):
    refused = _refused(tmp_path, """\
        from django.db import transaction

        from bank.models import Stamped


        @transaction.atomic
        def count(stamped_id):
            stamped = Stamped.objects.get(pk=stamped_id)
            stamped.count += 1
            stamped.save(update_fields=["count"])
    """)
    assert "auto_now" in refused


def test_save_writing_more_columns_than_assigned_stays_prose(tmp_path):
    refused = _refused(tmp_path, """\
        from django.db import transaction

        from bank.models import Account


        @transaction.atomic
        def deposit(account_id, amount):
            account = Account.objects.get(pk=account_id)
            account.balance += amount
            account.save(update_fields=["balance", "number"])
    """)
    assert "also writes number" in refused


def test_a_value_read_from_another_column_stays_prose(tmp_path):
    refused = _refused(tmp_path, """\
        from django.db import transaction

        from bank.models import Account


        @transaction.atomic
        def fee(account_id):
            account = Account.objects.get(pk=account_id)
            account.balance = account.balance - len(account.number)
            account.save(update_fields=["balance"])
    """)
    assert "reads account.number" in refused
