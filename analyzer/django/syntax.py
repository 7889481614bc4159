"""Small helpers over libcst nodes shared by the boundary finder and the walker."""

from __future__ import annotations

import libcst as cst

_EMPTY = cst.Module(body=[])


def dotted(node) -> str | None:
    """`a.b.c` for a Name/Attribute chain, None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def code(node: cst.CSTNode) -> str:
    """Source text of a node (costly: libcst code generation; use for messages and small nodes)."""
    try:
        return _EMPTY.code_for_node(node)
    except Exception:  # noqa: BLE001 - rendering is best effort, for messages only
        return type(node).__name__
