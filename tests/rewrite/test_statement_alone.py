"""Planning parses only the top-level statement around the call (python_syntax.locate): every
rewrite and every refusal is the one a parse of the whole module gives."""

from textwrap import dedent

import pytest

from analyzer.rewrite import python_f_expression, python_on_commit, python_syntax
from analyzer.rewrite.edits import Refused

HEAD_WITH_IMPORTS = '''\
    """Payments."""
    from django.core.mail import send_mail
    from django.db import transaction
    from django.db.models import F

    from bank.models import Account
    '''

HEAD_WITHOUT = '''\
    # leading comment, kept in the module's header
    from django.core.mail import send_mail
    from django.db.transaction import atomic

    from bank.models import Account
    '''

BODIES = [
    '''
    def close(account_id):
        with atomic():
            Account.objects.filter(pk=account_id).delete()
            send_mail("Closed", "Bye.", None, ["o@example.com"])  # after the delete
        # a trailing comment of the block


    # a comment between functions
    @decorated
    def other():
        return 1
    ''',
    '''
    class Service:
        """Methods of one class."""

        def deposit(self, account_id, amount):
            with atomic():
                account = Account.objects.select_for_update().get(pk=account_id)
                account.balance += amount
                account.save(update_fields=["balance"])
                send_mail("Paid", "Thanks.", None, ["o@example.com"])
            return account
    ''',
    '''
    def wrapper():
        with atomic():
            yield


    def nested(account_id):
        with atomic():
            with wrapper():
                send_mail("x", "y", None, [])
    ''',
    '''
    def uses_f(account_id):
        F = 3
        with atomic():
            account = Account.objects.get(pk=account_id)
            account.balance += F
            account.save(update_fields=["balance"])
            send_mail("x", "y", None, [transaction])
    ''',
]


def _outcome(builder, text, step, whole):
    try:
        rewrite = builder.rewrite("bank/services.py", text, {"line": step["txn_line"]}, step, None, whole=whole)
    except Refused as exc:
        return "refused", str(exc)
    return rewrite


def _steps(text):
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if "send_mail(" in line and "import" not in line:
            yield python_on_commit, {"callee": "django.core.mail.send_mail", "category": "email", "line": number,
                                     "txn_line": _with_above(lines, number)}
        if ".save(" in line:
            yield python_f_expression, {"api": "save", "kind": "write", "line": number, "entity": "Account",
                                        "txn_line": _with_above(lines, number)}


def _with_above(lines, number):
    return max(i for i, line in enumerate(lines[:number], 1) if "with atomic" in line)


@pytest.mark.parametrize("head", [HEAD_WITH_IMPORTS, HEAD_WITHOUT])
@pytest.mark.parametrize("body", BODIES)
def test_a_statement_alone_gives_what_the_whole_module_gives(head, body):
    text = dedent(head) + dedent(body)
    steps = list(_steps(text))
    assert steps
    for builder, step in steps:
        assert _outcome(builder, text, step, whole=False) == _outcome(builder, text, step, whole=True), step


def test_the_whole_module_is_parsed_only_when_needed():
    text = dedent(HEAD_WITH_IMPORTS) + dedent(BODIES[0])
    located = python_syntax.locate(text, text.splitlines().index(
        '        send_mail("Closed", "Bye.", None, ["o@example.com"])  # after the delete') + 1, "send_mail")
    assert located.span is not None and len(located.module.body) == 1
    start, end = located.span
    assert text[start:end].startswith("def close(") and text[end:].startswith("@decorated")
    # `transaction` is not imported but named in the module: whether it means something else is read
    # from the whole module
    other = dedent(HEAD_WITHOUT) + dedent(BODIES[3])
    line = next(i for i, x in enumerate(other.splitlines(), 1) if "send_mail(" in x and "import" not in x)
    assert python_syntax.locate(other, line, "send_mail", imports="transaction").span is None
    assert python_syntax.locate(other, line, "send_mail").span is not None
    # a text the compiler does not accept is parsed whole, as before
    broken = other.replace("def uses_f(account_id):", "def uses_f(account_id):\n    return = 1")
    assert python_syntax.locate(broken, line + 1, "send_mail") is None or \
        python_syntax.locate(broken, line + 1, "send_mail").span is None
