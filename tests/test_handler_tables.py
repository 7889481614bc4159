"""Walker handler tables (analyzer/django/walker.py, HandlerTable): each walker class's handler
of a node type is the method its name gives, looked up once per class."""

from __future__ import annotations

from analyzer.config import Config
from analyzer.django.call_sites import CallSiteWalker
from analyzer.django.caller_arguments import ToTheCall
from analyzer.django.walker import Walker
from analyzer.scan import scan
from conftest import SAMPLES


def test_tables_hold_the_methods_the_names_give_after_a_scan():
    scan(SAMPLES / "django" / "shop", Config(), "django", rewrites=False)
    assert Walker._expression_handlers and Walker._statement_handlers
    for cls in (Walker, ToTheCall, CallSiteWalker):
        for table, prefix in ((cls._statement_handlers, "_s_"), (cls._expression_handlers, "_e_")):
            for node_class, handler in table.items():
                assert handler is getattr(cls, prefix + node_class.__name__, None)


def test_each_walker_class_has_its_own_tables():
    class Naming(Walker):
        def _e_Name(self, node):
            return "overridden"

    class Node:
        pass

    Node.__name__ = "Name"
    assert Naming._expression_handlers is not Walker._expression_handlers
    assert Naming._expression_handlers[Node] is Naming._e_Name
    assert Walker._expression_handlers[Node] is Walker._e_Name
    Node.__name__ = "NoSuchNode"
    assert Walker._statement_handlers[type("NoSuchNode", (), {})] is None
