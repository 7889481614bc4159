"""libcst parsing for the analysis, without re-validating every node the parser builds.

Each libcst node checks its fields when it is constructed (`CSTNode.__post_init__` calls
`_validate`); for nodes made by libcst's own parser from source text this only confirms what the
grammar already guaranteed, and costs about a fifth of the parse. The analysis only reads the
trees it parses, so the check is left out while parsing; rewrites, which build nodes, keep it.
"""

from __future__ import annotations

import functools

import libcst as cst
from libcst._nodes.base import CSTNode

from . import ast_convert


def _unchecked(self) -> None:
    return None


def parse_module(text: str) -> cst.Module:
    """cst.parse_module(text), raising what it raises, without the per-node validation."""
    checked = CSTNode.__post_init__
    CSTNode.__post_init__ = _unchecked
    try:
        return cst.parse_module(text)
    finally:
        CSTNode.__post_init__ = checked


@functools.lru_cache(maxsize=8192)
def parse_expression(text: str) -> cst.BaseExpression:
    """The tree of one expression, as cst.parse_expression gives it for the fields the analysis
    reads: converted from Python's own parser (ast_convert.py, ten times faster than libcst's),
    libcst's parse where the conversion does not reach, raising what libcst raises. The same
    texts recur (field declarations, module-level dicts looked up at every call through them);
    trees are only read, so each text is parsed once."""
    try:
        return ast_convert.convert_expression(text)
    except ast_convert.NOT_CONVERTED:
        return cst.parse_expression(text)
