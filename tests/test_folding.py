"""Branch conditions fold only when every operand is a literal at the call site."""

import libcst as cst
import pytest

from analyzer.django.folding import UNKNOWN, fold
from analyzer.django.values import constant, plain

ENV = {
    "retries": constant("None"),
    "limit": constant("3"),
    "flag": constant("True"),
    "name": constant("'x'"),
    "user_id": plain({("input", "user_id")}, "user_id"),
    "row": plain({("result", "s1")}, "row"),
    "mixed": plain({("constant", "1"), ("input", "x")}, "1"),
}

CASES = {
    "retries is None": True,
    "retries is not None": False,
    "retries is None or retries <= 0": True,
    "limit <= 0": False,
    "limit > 2 and flag": True,
    "not flag": False,
    "name == 'x'": True,
    "user_id is None": UNKNOWN,          # an input: unknown until run time
    "row": UNKNOWN,                      # a query result
    "mixed == 1": UNKNOWN,               # partly an input
    "flag or user_id": True,             # decided by the literal left operand
    "user_id or flag": UNKNOWN,
    "limit < 'a'": UNKNOWN,              # no order between int and str
    "helper(limit)": UNKNOWN,            # calls never fold
}


@pytest.mark.parametrize("source,expected", CASES.items(), ids=CASES.keys())
def test_fold(source, expected):
    assert fold(cst.parse_expression(source), ENV) is expected
