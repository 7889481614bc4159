"""Settings from `[tool.txscan]` in the scanned project's pyproject.toml (or an explicit file).

    [tool.txscan]
    cda = "pk"                       # or "auto"
    exclude = ["legacy", "scripts"]  # extra folder names to skip
    depth = 6                        # interprocedural depth
    [tool.txscan.cda-entities]
    User = ["email"]                 # fix an entity's conflict detection attribute(s)
    [tool.txscan.effects]
    "myapp.clients.notify" = "http"  # extra external-effect callees (qualified name -> category)
    [tool.txscan.statements]
    "myapp.db.run_query" = "raw"     # extra database calls (qualified name -> read/write/insert/delete/lock/raw)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(Exception):
    pass


@dataclass
class Config:
    cda: str = "pk"
    exclude: list[str] = field(default_factory=list)
    depth: int = 6
    cda_entities: dict[str, list[str]] = field(default_factory=dict)
    max_file_bytes: int = 1_500_000
    extra_effects: dict[str, str] = field(default_factory=dict)      # callee qualified name -> category
    extra_statements: dict[str, str] = field(default_factory=dict)   # callee qualified name -> kind


def load(root: Path, explicit: Path | None = None) -> Config:
    path = explicit or (root / "pyproject.toml")
    if not path.is_file():
        return Config()
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    section = data.get("tool", {}).get("txscan", {})
    config = Config()
    if "cda" in section:
        if section["cda"] not in ("pk", "auto"):
            raise ConfigError(f"{path}: [tool.txscan] cda must be 'pk' or 'auto', not {section['cda']!r}")
        config.cda = section["cda"]
    config.exclude = list(section.get("exclude", []))
    config.depth = int(section.get("depth", config.depth))
    config.max_file_bytes = int(section.get("max-file-bytes", config.max_file_bytes))
    entities = section.get("cda-entities", {})
    if not isinstance(entities, dict) or not all(isinstance(v, list) for v in entities.values()):
        raise ConfigError(f"{path}: [tool.txscan.cda-entities] maps entity names to lists of attributes")
    config.cda_entities = {k: [str(a) for a in v] for k, v in entities.items()}
    config.extra_effects = _name_table(path, section, "effects", None)
    config.extra_statements = _name_table(path, section, "statements", STATEMENT_KINDS)
    return config


STATEMENT_KINDS = ("read", "write", "insert", "delete", "lock", "raw")


def _name_table(path: Path, section: dict, key: str, allowed: tuple[str, ...] | None) -> dict[str, str]:
    """`[tool.txscan.<key>]`: qualified callee names mapped to a category or statement kind."""
    table = section.get(key, {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ConfigError(f"{path}: [tool.txscan.{key}] maps qualified callee names to strings")
    if allowed is not None:
        wrong = sorted(v for v in table.values() if v not in allowed)
        if wrong:
            raise ConfigError(f"{path}: [tool.txscan.{key}] kinds must be one of {', '.join(allowed)}, not {wrong[0]!r}")
    return {str(k): v for k, v in sorted(table.items())}
