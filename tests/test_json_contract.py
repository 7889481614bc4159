"""The `--format json` text: json_contract.dumps writes what json.dumps(indent=2, sort_keys=True,
ensure_ascii=False) writes, byte for byte, for every document (its own writer where the document
holds only strings, integers, booleans, None, lists and string-keyed dicts; json's for the rest)."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES

from analyzer.output import json_contract
from analyzer.scan import scan


def _json(doc) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("sample", ["shop", "forum"])
def test_a_scans_document_is_written_as_json_writes_it(sample):
    root = SAMPLES / "django" / sample
    result = scan(root, rewrites=True)
    for analysis in result.analyses.values():
        doc = json_contract.document(analysis, root.name, result.lines, len(result.files))
        assert doc["transactions"] and doc["entities"]
        assert json_contract.dumps(doc) == _json(doc)


@pytest.mark.parametrize("doc", [
    {},
    [],
    {"b": [], "a": {}, "c": [[], {}, [[]]]},
    {"text": "quote \" backslash \\ tab \t newline \n nul \x00 bell \x07 del \x7f",
     "unicode": "naïve café 日本 \u2028 \U0001f600 \ud800", "é": "key not ASCII"},
    {"ints": [0, -1, 10**30, True, False, None], "tuple": ("a", 1), "nested": {"z": {"y": {"x": [1, {"w": []}]}}}},
    {"float": 1.5, "other": [2.0, float("inf"), float("nan")]},  # floats: json's own writer
    {"keys": {2: "int key", 1: "int key", 10: None}},            # non-string keys: json's own writer
    "a bare string",
    [1, "two", None],
], ids=["empty-dict", "empty-list", "empty-containers", "escapes", "scalars", "floats", "int-keys", "string", "list"])
def test_any_document_is_written_as_json_writes_it(doc):
    assert json_contract.dumps(doc) == _json(doc)
