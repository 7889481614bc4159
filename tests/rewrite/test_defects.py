"""One test per defect found in the suggestions txscan used to print, proving it cannot come back:
code is shown only for a rewrite that parses, names what the entity has, and re-analysis confirms."""

from analyzer.config import Config
from analyzer.rewrite import checks
from analyzer.scan import scan

from django_projects import write


def test_a_repeated_keyword_argument_never_passes_the_parse_check():
    # libcst alone accepts it; the compiler check rejects it (it was a SyntaxError in a suggestion).
    assert checks.python_parses("x.py", "Account.objects.filter(number=a, number=b).update(balance=1)\n")
    assert checks.python_parses("x.py", "Account.objects.filter(number=a).update(balance=1)\n") is None


def test_an_or_predicate_is_kept_as_written_never_turned_into_an_and(tmp_path):
    # The old generator flattened Q(a) | Q(b) into filter(a=..., b=...): an AND (or a repeated keyword).
    app = write(tmp_path, """\
        from django.db import transaction
        from django.db.models import Q

        from bank.models import Account


        @transaction.atomic
        def deposit(number, email, amount):
            account = Account.objects.get(Q(number=number) | Q(owner__email=email))
            account.balance += amount
            account.save(update_fields=["balance"])
    """)
    after, _candidate = app.rewritten("f-expression")
    assert "Account.objects.filter(Q(number=number) | Q(owner__email=email)).update(" in after
    assert checks.python_parses("bank/services.py", after) is None


def test_the_row_is_selected_by_its_key_never_by_the_amount(tmp_path):
    # The old generator printed filter(pk=amount): the value of the wrong source.
    app = write(tmp_path, """\
        from django.db import transaction

        from bank.models import Account


        @transaction.atomic
        def deposit(account_id, amount):
            account = Account.objects.get(pk=account_id)
            account.balance += amount
            account.save(update_fields=["balance"])
    """)
    after, _candidate = app.rewritten("f-expression")
    assert 'Account.objects.filter(pk=account_id).update(balance=F("balance") + amount)' in after
    assert "pk=amount" not in after


def test_attributes_of_another_entity_are_rejected():
    # The old generator filtered the target entity by the source entity's keys.
    customer = {"name": "Customer", "pk": ["id"], "fields": ["id", "email", "credit"], "relations": []}
    account = {"name": "Account", "pk": ["id"], "fields": ["id", "number", "balance", "owner"],
               "relations": [{"attribute": "owner", "kind": "fk", "target": "Customer"}]}
    assert checks.unknown_attributes(account, ["email", "balance"]) == ["email"]
    assert checks.unknown_attributes(account, ["owner__email", "owner_id", "pk", "number__in"]) == []
    assert checks.unknown_attributes(customer, ["balance"]) == ["balance"]
    assert checks.unknown_attributes(None, ["pk"]) == ["pk"]


def test_a_dependent_key_across_entities_is_prose_not_code(tmp_path):
    app = write(tmp_path, """\
        from django.db import transaction

        from bank.models import Account, Customer


        @transaction.atomic
        def credit_owner(number, amount):
            account = Account.objects.get(number=number)
            Customer.objects.filter(pk=account.owner_id).update(credit=amount)
    """)
    result, found = app.candidates()
    suggestions = [s for t in result.analyses["pk"]["transactions"] for s in t["suggestions"]]
    assert any(s["pattern"] == "dependent-key" for s in suggestions)
    assert all(c.rewrite is None for c in found if c.suggestion[1] == "dependent-key")


def test_an_insert_computed_from_a_read_gets_prose_never_an_increment(tmp_path):
    # The old generator printed increment(Transfer, ...) for an insert.
    app = write(tmp_path, """\
        from django.db import transaction

        from bank.models import Account


        @transaction.atomic
        def copy(account_id, number):
            account = Account.objects.get(pk=account_id)
            Account.objects.create(number=number, balance=account.balance, owner_id=account.owner_id)
    """)
    _result, found = app.candidates()
    rmw = [c for c in found if c.suggestion[1] == "read-modify-write"]
    assert rmw and all(c.rewrite is None and "create()" in c.refused for c in rmw)


def test_no_placeholders_and_no_unverified_code_in_a_scan(tmp_path):
    # `update(balance=...)`, `create(...)`: placeholders were printed as code.
    app = write(tmp_path, """\
        from django.core.mail import send_mail
        from django.db import transaction

        from bank.models import Account


        @transaction.atomic
        def deposit(account_id, amount):
            account = Account.objects.get(pk=account_id)
            account.balance += amount
            account.save()


        @transaction.atomic
        def close(account_id):
            Account.objects.filter(pk=account_id).delete()
            send_mail("Closed", "Bye.", None, ["owner@example.com"])
    """)
    result = scan(app.root, Config(), "django")
    suggestions = [s for a in result.analyses.values() for t in a["transactions"] for s in t["suggestions"]]
    assert {s["kind"] for s in suggestions} == {"one-shot", "on-commit"}
    for s in suggestions:
        if s["code"]:
            assert s["verified"] and "..." not in s["code"]
        else:
            assert not s["verified"] and not s["makes_one_shot"] and s["claim"].startswith("no code shown: ")
    # save() without update_fields writes every column: prose, with the reason.
    assert any("without update_fields" in s["claim"] for s in suggestions)
    assert any(s["verified"] for s in suggestions)
