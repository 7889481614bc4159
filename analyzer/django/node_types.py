"""Node-type tests for the walk's hot paths, without ABCMeta's instance check.

Every libcst node class is an ABC, so `isinstance(node, cst.Name)` runs the Python-level
ABCMeta.__instancecheck__ whenever the node is not exactly a cst.Name, and a converted tree's
nodes (ast_convert.py) are subclasses of libcst's, so they always take that path: about 0.2 µs
a test, asked 290,000 times in a scan of taiga-back. `kinds(cst.Name)` is every class such an
isinstance test accepts (the libcst class, its converted twin and any other subclass), and
`type(node) in NAME` gives the same answer with a set lookup.

The sets are made when this module is imported, after ast_convert has made its classes; a
node class made later would be missing from them (none is: tests/test_node_types.py checks
every subclass of cst.CSTNode against isinstance).
"""

from __future__ import annotations

import libcst as cst

from . import ast_convert  # noqa: F401 - its classes are subclasses the sets must hold


# Every set made, with the classes it was made of (the test checks each against isinstance).
MADE: list[tuple[frozenset[type], tuple[type, ...]]] = []


def kinds(*bases: type) -> frozenset[type]:
    """The classes `isinstance(node, bases)` accepts: the bases and all their subclasses."""
    out: set[type] = set()
    stack = list(bases)
    while stack:
        cls = stack.pop()
        if cls not in out:
            out.add(cls)
            stack.extend(cls.__subclasses__())
    made = frozenset(out)
    MADE.append((made, bases))
    return made


NAME = kinds(cst.Name)
ATTRIBUTE = kinds(cst.Attribute)
CALL = kinds(cst.Call)
TUPLE_OR_LIST = kinds(cst.Tuple, cst.List)
STARRED_ELEMENT = kinds(cst.StarredElement)
NUMBER_OR_STRING = kinds(cst.Integer, cst.Float, cst.SimpleString)
BINARY_OPERATION = kinds(cst.BinaryOperation)
SIMPLE_STATEMENT_LINE = kinds(cst.SimpleStatementLine)
INDENTED_BLOCK = kinds(cst.IndentedBlock)
SIMPLE_STATEMENT_SUITE = kinds(cst.SimpleStatementSuite)
LEAVING = kinds(cst.Return, cst.Raise, cst.Continue, cst.Break)
IF = kinds(cst.If)
ELSE = kinds(cst.Else)
SLICE = kinds(cst.Slice)
INDEX = kinds(cst.Index)
FUNCTION_DEF = kinds(cst.FunctionDef)
