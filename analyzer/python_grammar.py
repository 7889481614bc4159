"""tree-sitter's Python grammar, loaded once for every part of txscan that parses Python with it
(the Django index, the nesting check, lint's syntax pass, the rewrites' module outline)."""

from __future__ import annotations

import tree_sitter as ts
import tree_sitter_python as tsp

PYTHON = ts.Language(tsp.language())
