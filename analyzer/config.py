"""Settings from `[tool.txscan]` in the scanned project's pyproject.toml (or an explicit file).

    [tool.txscan]
    cda = "pk"                       # or "auto"
    exclude = ["legacy", "scripts"]  # extra folder names to skip
    depth = 6                        # interprocedural depth
    [tool.txscan.cda-entities]
    User = ["email"]                 # fix an entity's conflict detection attribute(s)
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
    return config
