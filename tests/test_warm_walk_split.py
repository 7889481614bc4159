"""scripts/warm_walk_split.py classes the walks of a warm lint after a helper edit: it must keep
watching the walker (its hooks name private methods) and class what it sees as the cache does."""

from __future__ import annotations

import ast
import importlib.util
import sys

from conftest import ROOT, SAMPLES

sys.path.insert(0, str(ROOT / "scripts"))
_spec = importlib.util.spec_from_file_location("warm_walk_split", ROOT / "scripts" / "warm_walk_split.py")
split_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(split_tool)


def _edited_function(path) -> str:
    """The qualified name (module.function) of the function holding the benchmark's statement."""
    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and inner.id == "_benchmark_edit":
                    return node.name
    raise AssertionError("no benchmark edit found")


def test_helper_edit_split_matches_the_cache(tmp_path):
    copy, rel = split_tool.prepare(SAMPLES / "django" / "shop", None, tmp_path)
    module = rel[:-3].replace("/", ".")
    expected = f"{module}.{_edited_function(copy / rel)}"

    split = split_tool.lint_watched(copy, rel)
    assert split["changed"] == [expected]
    # the watched walks are the cache's re-walked transactions, and they did reach the edit
    assert split["transactions_walked"] == split["reuse_walked"] > 0
    assert split["changed_walks"] and all(w["function"] == expected for w in split["changed_walks"])
    assert split["walks_reaching_changed"] >= len(split["changed_walks"])
    assert split["unchanged_outermost"]["count"] + split["walks_reaching_changed"] <= split["walks"]
    assert split["unchanged_cacheable"]["count"] <= split["walks"] - split["walks_reaching_changed"]

    # the lint above kept its walks: the same lint again walks nothing and finds nothing changed
    again = split_tool.lint_watched(copy, rel)
    assert again["transactions_walked"] == again["reuse_walked"] == 0
    assert again["changed"] == [] and again["walks"] == 0
