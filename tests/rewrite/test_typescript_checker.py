"""The TypeScript syntax checks of rewrites are answered by one node process (rewrite-check.js
--lines) for the whole Python process, and a process that died is replaced, never reused."""

import shutil

import pytest

from analyzer.rewrite import typescript_syntax

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is needed for TypeScript checks")


def test_one_process_answers_every_check():
    typescript_syntax.facts.cache_clear()
    assert typescript_syntax.parse_errors("a.ts", "const a = ;\n") == ["a.ts:1: Expression expected."]
    first = typescript_syntax._CHECKER._process
    facts = typescript_syntax.facts("b.ts", "async function f() {\n  const a = await g();\n}\n", 2)
    assert typescript_syntax._CHECKER._process is first and first.poll() is None
    assert [s["kind"] for s in facts["statements"]] == ["declaration"]
    assert facts["statements"][0]["call"]["method"] == "g"


def test_a_dead_process_is_replaced():
    typescript_syntax.facts.cache_clear()
    typescript_syntax.parse_errors("c.ts", "let x = 1;\n")
    dead = typescript_syntax._CHECKER._process
    dead.kill()
    dead.wait()
    assert typescript_syntax.parse_errors("d.ts", "let x = ;\n") == ["d.ts:1: Expression expected."]
    assert typescript_syntax._CHECKER._process is not dead


def test_offsets_past_astral_characters_are_string_indexes():
    typescript_syntax.facts.cache_clear()
    text = 'const s = "\U0001F600";\nasync function f() {\n  await g(1);\n}\n'
    call = typescript_syntax.facts("e.ts", text, 3)["calls"][0]
    assert text[call["start"]:call["end"]] == "g(1)"
