"""The cheap estimate in front of the exact depth measurement (analyzer/django/nesting.py): each
of its signs on its own sends a file to the exact measurement, ordinary code never does."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from analyzer.django.nesting import MAX_TREE_DEPTH, could_be_deep, has_wide_indentation, nesting_problem


def _blocks(depth: int, unit: str) -> str:
    """`depth` nested if-blocks, each indented by one more `unit`."""
    return "".join(f"{unit * level}if x:\n" for level in range(depth)) + unit * depth + "pass\n"


@pytest.mark.parametrize("text", [
    _blocks(45, " "),                        # 46 widths of spaces
    _blocks(45, "\t"),                       # 46 widths of tabs
    "x = " + "(" * 45 + ")" * 45 + "\n",     # brackets nested 45 deep
    "x = 1" + " " * 400 + "\n",              # a long line
    "x = 1 \\\n" * 101 + "\n",               # many continuations
])
def test_each_sign_sends_the_file_to_the_exact_measurement(text):
    assert could_be_deep(text)


def test_mixed_indentation_counts_distinct_strings():
    # 41 distinct strings of at most 6 characters: tabs and spaces mixed, none 40 wide
    units = [format(n, "06b").replace("0", " ").replace("1", "\t") for n in range(41)]
    text = "class A:\n" + "".join(f"{u}x = 1\n" for u in units)
    assert max(map(len, units)) < 40 and could_be_deep(text)
    assert not could_be_deep("class A:\n" + "".join(f"{u}x = 1\n" for u in units[:39]))


def test_wide_but_few_indentations_are_not_deep():
    text = "def f():\n" + " " * 60 + "return 1\n" + " " * 44 + "\n"
    assert not could_be_deep(text)


def test_ordinary_code_is_not_measured_and_deep_code_is_refused():
    for path in sorted((ROOT / "analyzer" / "django").glob("*.py")):
        assert not could_be_deep(path.read_text("utf-8")), path.name
    assert nesting_problem("x = " + "[" * (MAX_TREE_DEPTH + 5) + "]" * (MAX_TREE_DEPTH + 5) + "\n")


_WIDE = " " * 40


@pytest.mark.parametrize("text", [
    _WIDE + "x = 1\n",                       # at the text's start
    "def f():\n" + _WIDE + "return 1\n",     # after a newline
    "def f():\n" + " " * 39 + "return 1\n",  # one space short
    "x = '" + _WIDE + "'\n",                 # wide, but not at a line's start
    "def f():\n\t" + _WIDE + "return 1\n",  # after a tab
    "a\r" + _WIDE + "b\n",                   # a carriage return does not start a line for `^`
    "",
    _WIDE,
])
def test_wide_indentation_is_found_where_a_multiline_caret_finds_it(text):
    assert has_wide_indentation(text) == bool(re.search("^ {40}", text, re.MULTILINE))


def test_wide_indentation_agrees_on_real_files():
    for path in sorted((ROOT / "analyzer").rglob("*.py")) + sorted((ROOT / "tests" / "fixtures").rglob("*.py")):
        text = path.read_text("utf-8", "replace")
        assert has_wide_indentation(text) == bool(re.search("^ {40}", text, re.MULTILINE)), path
