"""cache/trivia.py: a definition whose code lines are the same text in the same order is mapped
line by line to today's; a line that looks like a comment or is blank inside a string spanning
lines, then or now, or a backslash continuation, refuses the map (the transactions reaching the
definition are walked again: tests/test_cache.py)."""

from __future__ import annotations

import ast

from analyzer.cache.trivia import layout, line_map

BEFORE = [
    "    def total(self, rows):\n",
    '        """Sum the rows."""\n',
    "        out = 0\n",
    "        for row in rows:\n",
    "            out += row.n\n",
    "        return out\n",
]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _positions(lines: list[str], first: int) -> list[tuple[int, str]]:
    """(line, node type) of every statement, as the parser numbers them from `first`."""
    tree = ast.parse("class Rows:\n" + "".join(lines)).body[0]  # a method, as the index cuts it
    return [(node.lineno + first - 2, type(node).__name__) for node in ast.walk(tree) if isinstance(node, ast.stmt)
            and node is not tree]


def test_comment_and_blank_lines_added_map_every_code_line_where_the_parser_finds_its_statement():
    after = BEFORE[:3] + ["\n", "        # rows may be empty\n"] + BEFORE[3:5] + ["  # trailing note\n"] + BEFORE[5:]
    moved = line_map(layout(BEFORE), 40, after, 52)
    assert moved == {40: 52, 41: 53, 42: 54, 43: 57, 44: 58, 45: 60}
    then, now = _positions(BEFORE, 40), _positions(after, 52)
    assert [(moved[line], kind) for line, kind in then] == now


def test_comment_and_blank_lines_removed_map_too():
    before = BEFORE[:2] + ["\n", "        # start at nothing\n"] + BEFORE[2:]
    assert line_map(layout(before), 1, BEFORE, 1) == {1: 1, 2: 2, 5: 3, 6: 4, 7: 5, 8: 6}


def test_a_changed_code_line_gives_no_map():
    after = BEFORE[:2] + ["        out = 1\n"] + BEFORE[3:]
    assert line_map(layout(BEFORE), 1, after, 1) is None


def test_a_comment_like_line_inside_a_string_now_or_then_gives_no_map():
    with_string = BEFORE[:2] + ['        sql = """\n', "            select 1\n", '        """\n'] + BEFORE[2:]
    into_string = with_string[:3] + ["# inside the string\n"] + with_string[3:]
    blank_into_string = with_string[:3] + ["\n"] + with_string[3:]
    assert line_map(layout(with_string), 1, into_string, 1) is None
    assert line_map(layout(with_string), 1, blank_into_string, 1) is None
    assert line_map(layout(into_string), 1, with_string, 1) is None  # taken out of the string
    assert line_map(layout(blank_into_string), 1, with_string, 1) is None
    # outside the string, the same line is trivia
    after = with_string[:6] + ["        # after the string\n"] + with_string[6:]
    assert line_map(layout(with_string), 1, after, 1) is not None


def test_a_backslash_continuation_gives_no_layout_and_no_map():
    continued = BEFORE[:2] + ["        out = \\\n", "            0\n"] + BEFORE[3:]
    assert layout(continued) is None
    assert line_map(layout(BEFORE), 1, continued, 1) is None
    assert line_map(None, 1, BEFORE, 1) is None


def test_text_that_does_not_tokenize_gives_no_map():
    before = BEFORE[:2] + ["        out = '''\n", "        x\n"]
    after = before[:3] + ["\n"] + before[3:]
    assert line_map(layout(before), 1, after, 1) is None


def test_blank_lines_of_a_docstring_left_as_they_were_do_not_stop_a_comment_added_elsewhere():
    documented = BEFORE[:1] + ['        """Sum the rows.\n', "\n", "        Each row has an n.\n", '        """\n'] + BEFORE[2:]
    after = documented[:5] + ["        # start at nothing\n"] + documented[5:]
    assert line_map(layout(documented), 1, after, 1) == {1: 1, 2: 2, 4: 4, 5: 5, 6: 7, 7: 8, 8: 9, 9: 10}
    assert line_map(layout(after), 1, documented, 1) is not None


def test_lines_cut_at_a_form_feed_or_a_no_break_space_are_not_trivia():
    form_feed = BEFORE[:2] + ["        out = 0\x0c", "        # after a form feed\n"] + BEFORE[3:]
    assert layout(form_feed) is None
    no_break = BEFORE[:2] + ["\xa0# not Python\n"] + BEFORE[2:]
    assert line_map(layout(no_break), 1, BEFORE, 1) is None
