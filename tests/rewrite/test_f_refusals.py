"""The f-expression refusals told from Python's own parser (python_f_refusals.early_refusal) are
the builder's own: each answer is compared with the builder's on the whole module parsed by
libcst, and the shapes it is for must get an answer (else the shortcut silently stopped)."""

from textwrap import indent

import pytest

from analyzer.rewrite import python_f_expression
from analyzer.rewrite.edits import Refused
from analyzer.rewrite.python_f_refusals import NO_UPDATE_FIELDS, READS_OTHER, USED_BETWEEN, early_refusal
from conftest import django_sample_texts

HEAD = """\
from django.db import transaction

from bank.models import Account


def before():
    return 1
"""

TAIL = """

def after(x):
    return x
"""

# A transfer: `source` is used between its read and its save(), `target` is saved without
# update_fields. The marker lines are replaced by each case's statements.
TRANSFER = """\
source = Account.objects.select_for_update().get(pk=source_id)
target = Account.objects.select_for_update().get(pk=target_id)
#BETWEEN
source.balance -= amount
target.balance += amount
source.save()
target.save()
"""

USED = [  # statements between the reads and the assignments naming `source`: its save() is refused so
    "if source.balance < amount:\n    raise ValueError('insufficient')",
    "log(f'{source.pk} pays')",
    "checks = [a for a in source.lines]",
    "with lock(source):\n    pass",
    "try:\n    verify(source)\nexcept ValueError:\n    pass",
    "for line in source.lines:\n    total = line",
    "@register(source)\ndef hook():\n    return 1",
    "class Other:\n    source = 1",
]
UNRELATED = ["", "audit(obj=1)", "x = 1  # a comment"]  # no `source` at all: both saves lack update_fields
LEFT_TO_LIBCST = [  # `source` is a word there but not an `ast` name (libcst may count it): no answer
    "handler = lambda source: 1",
    "def source():\n    return 1",
    "audit(source=1)",
    "note = other.source",
    "try:\n    pass\nexcept ValueError as source:\n    pass",
    "note = 'source'  # source",
]


def _module(body: str, between: str, wrap=lambda body: body) -> str:
    statements = body.replace("#BETWEEN\n", indent(between, "") + "\n" if between else "")
    return HEAD + "\n\n" + wrap(statements) + TAIL


def _function(statements: str) -> str:
    return "@transaction.atomic\ndef transfer(source_id, target_id, amount):\n" + indent(statements, "    ")


def _method(statements: str) -> str:
    return ("class Service:\n    async def transfer(self, source_id, target_id, amount):\n"
            "        with transaction.atomic():\n" + indent(statements, "            "))


def _nested(statements: str) -> str:
    return "def outer():\n    def transfer(source_id, target_id, amount):\n" + indent(statements, "        ") + \
        "\n    return transfer\n"


def _builder(text: str, line: int) -> str:
    step = {"api": "save", "kind": "write", "line": line, "entity": "Account"}
    try:
        python_f_expression.rewrite("bank/services.py", text, {"line": 1}, step, None, whole=True)
    except Refused as exc:
        return str(exc)
    return "a rewrite"


def _saves(text: str):
    return [number for number, line in enumerate(text.splitlines(), 1) if ".save(" in line]


def _compare(text: str) -> list[str | None]:
    """Each save()'s early answer, checked against the builder's."""
    answers = []
    for line in _saves(text):
        early = early_refusal(text, line)
        assert early is None or early == _builder(text, line), (text, line)
        answers.append(early)
    return answers


@pytest.mark.parametrize("wrap", [_function, _method, _nested])
@pytest.mark.parametrize("between", USED + UNRELATED)
def test_used_between_and_no_update_fields_are_the_builders(wrap, between):
    text = _module(TRANSFER, between, wrap)
    first = USED_BETWEEN.format(obj="source") if between in USED else NO_UPDATE_FIELDS
    assert _compare(text) == [first, NO_UPDATE_FIELDS]


@pytest.mark.parametrize("wrap", [_function, _method])
@pytest.mark.parametrize("between", LEFT_TO_LIBCST)
def test_a_name_ast_does_not_see_is_left_to_libcst(wrap, between):
    text = _module(TRANSFER, between, wrap)
    assert _compare(text) == [None, NO_UPDATE_FIELDS]


SHAPES = [  # lines of a transaction's body where the shortcut must not answer differently
    "row = Account.objects.get(pk=1)\nrow.balance += 1; row.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nx = 1; row.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nx = 1; \\\nrow.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nif ok: row.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nif (ok and\n        ready): row.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save();",
    "row = Account.objects.get(pk=1)\nrow.balance = row.balance + 1\nrow.save()",
    "row = Account.objects.get(pk=1)\nrow.balance = row.other + 1\nrow.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nrow.balance += 2\nrow.save()",
    "row = Account.objects.get(pk=1)\nrow.save()",
    "row.balance += 1\nrow.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save(update_fields=['balance'])",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save(update_fields=names())",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save(force_update=True)",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save(row.save())",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nglobal row\nrow.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\n(row).save()",
    "row = Account.objects.get(pk=1)\nrow.balance *= 2\nrow.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save()\nrow.save()",
    "rów = Account.objects.get(pk=1)\nrów.balance += 1\nrów.save()",
    "ｒow = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save()",
    "row = Account.objects.get(pk=1)\nif ok:\n    row.balance += 1\n    row.save()",
    "row = Account.objects.get(pk=1)\nrow.balance += 1\nmatch row:\n    case Account(pk=1):\n        row.save()",
]


@pytest.mark.parametrize("wrap", [_function, _method, _nested])
@pytest.mark.parametrize("body", SHAPES)
def test_other_shapes_get_the_builders_answer_or_none(wrap, body):
    _compare(_module(body, "", wrap))


READS = [  # (the assignments before `row.save(update_fields=...)`, the attribute assigned, the one read)
    ("row.due = row.next_due()", "due", "next_due"),
    ("row.due = compute(row.kind, row.due)", "due", "kind"),
    ("row.due = row.due + row.period", "due", "period"),
    ("row.due = (row.due\n           + row.period)", "due", "period"),
    ("row.due = [row.due for _ in range(2)][row.start]", "due", "start"),
    ("row.due = {row.due: row.grace}[row.due]", "due", "grace"),
    ("row.due = (lambda row: row.kind)(row)", "due", "kind"),
    ("row.due = row.due.replace(day=1) if row.monthly else row.due", "due", "monthly"),
    ("row.due += row.step", "due", "step"),
    ("row.due = row.early if row.late else 0", "due", "early"),
    ("row.due = [row.kind for _ in row.items if row.late]", "due", "kind"),
    ("row.due = row.table[row.key]", "due", "table"),
    ("row.due = {row.key: row.value for _ in row.items}", "due", "key"),
    ("row.due = row.other\nrow.n += 1", "due", "other"),
    ("row.n += 1\nrow.due = row.other", "due", "other"),
]
LEFT_TO_THE_BUILDER = [  # the value names `row` another way, or only as the assigned attribute
    "row.due = row.due + 1",
    "row.due = f'{row.kind}'",
    "row.due = compute(row)",
    "row.due = other.row",
    "row.due = 'row'",
    "row.due = row.due.row",
]


@pytest.mark.parametrize("wrap", [_function, _method, _nested])
@pytest.mark.parametrize("assignments, attribute, other", READS)
def test_a_value_reading_another_attribute_is_the_builders_refusal(wrap, assignments, attribute, other):
    body = f"row = Account.objects.get(pk=1)\n{assignments}\nrow.save(update_fields=['due'])"
    assert _compare(_module(body, "", wrap)) == [READS_OTHER.format(attribute=attribute, obj="row", other=other)]


@pytest.mark.parametrize("wrap", [_function, _method])
@pytest.mark.parametrize("assignment", LEFT_TO_THE_BUILDER)
def test_a_value_naming_the_object_otherwise_is_left_to_the_builder(wrap, assignment):
    body = f"row = Account.objects.get(pk=1)\n{assignment}\nrow.save(update_fields=['due'])"
    assert _compare(_module(body, "", wrap)) == [None]


def test_module_level_and_uncompilable_texts_are_left_to_libcst():
    module_level = HEAD + "\nrow = Account.objects.get(pk=1)\nrow.balance += 1\nrow.save()\n"
    assert _compare(module_level) == [None]
    # Python 3.11 cannot compile these (3.12 syntax; a module-level return): the builder decides
    for extra in ("type Alias = int\n", "def generic[T](x: T) -> T:\n    return x\n", "return 1\n"):
        text = _module(TRANSFER, "", _function) + extra
        assert _compare(text) == [None, None]


def test_the_samples_and_fixtures_get_the_builders_answers():
    compared = 0
    for _path, text in django_sample_texts():
        compared += len(_compare(text))
    assert compared > 20
