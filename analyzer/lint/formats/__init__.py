"""Renderers of lint results, one module per `--format`."""

from __future__ import annotations

from . import concise, full, github, json_format, sarif

RENDERERS = {
    "concise": concise.render,
    "full": full.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
FORMATS = tuple(RENDERERS)
