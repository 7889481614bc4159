"""Settings from `[tool.txscan]` in the scanned project's pyproject.toml (or an explicit file).

    [tool.txscan]
    cda = "pk"                       # or "auto"
    exclude = ["legacy", "scripts"]  # extra folder names to skip
    depth = 6                        # interprocedural depth (1 or more; default: unbounded)
    max-file-bytes = 1500000         # larger source files are a diagnostic, not read
    [tool.txscan.cda-entities]
    User = ["email"]                 # fix an entity's conflict detection attribute(s)
    [tool.txscan.effects]
    "acme.notify" = "email"          # extra external-effect callees: callee -> category
    [tool.txscan.statements]
    "acme.db.bulk_sync" = "write"    # extra database-statement callees: callee -> read/write/insert/delete/lock/raw
    [tool.txscan.lint]               # read by the lint command, which validates its content

Every key is checked here, once, for type and value: a wrong one is a `ConfigError` naming
the file, the key and what is expected (the command line prints it and exits 2). Unknown keys
are errors too, not warnings: a misspelt `exlude` silently scanning the excluded code would
give wrong verdicts with no sign of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(Exception):
    """A settings file that cannot be used: where (file, key) and what was expected."""

    def __init__(self, path: Path, key: str | None, expected: str, got: object = None) -> None:
        self.path, self.key, self.expected, self.got = path, key, expected, got
        where = f"{path}: [tool.txscan] {key}" if key else str(path)
        found = "" if got is None else f", not {_describe(got)}"
        super().__init__(f"{where} {expected}{found}" if key else f"{where}: {expected}{found}")


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass
class Config:
    cda: str = "pk"
    exclude: list[str] = field(default_factory=list)
    depth: int | None = None         # None: the front end's default (scan.DEFAULT_DEPTH)
    cda_entities: dict[str, list[str]] = field(default_factory=dict)
    max_file_bytes: int = 1_500_000
    extra_effects: dict[str, str] = field(default_factory=dict)
    extra_statements: dict[str, str] = field(default_factory=dict)
    lint: dict = field(default_factory=dict)


def _string_list(path: Path, key: str, value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(path, key, "must be a list of folder names (e.g. [\"legacy\"])" if key == "exclude" else "must be a list of non-empty strings", value)
    return list(value)


def _positive_int(path: Path, key: str, value: object) -> int:
    # bool is an int in Python; `depth = true` is a mistake, not 1.
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(path, key, "must be a whole number of 1 or more", value)
    return value


STATEMENT_KINDS = ("read", "write", "insert", "delete", "lock", "raw")


def _string_table(path: Path, key: str, value: object, meaning: str,
                  allowed: tuple[str, ...] | None = None) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) and v for v in value.values()):
        raise ConfigError(path, key, f"must be a table of {meaning}", value)
    if allowed is not None:
        for callee, kind in sorted(value.items()):
            if kind not in allowed:
                raise ConfigError(path, f"{key}.{callee}", "must be one of " + ", ".join(allowed), kind)
    return {str(k): v for k, v in sorted(value.items())}


def _cda(path: Path, key: str, value: object) -> str:
    if value not in ("pk", "auto"):
        raise ConfigError(path, key, "must be 'pk' or 'auto'", value)
    return value


def _cda_entities(path: Path, key: str, value: object) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise ConfigError(path, key, "must be a table of entity name -> list of attributes", value)
    return {name: _string_list(path, f"{key}.{name}", attrs) for name, attrs in value.items()}


def _lint(path: Path, key: str, value: object) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(path, key, "must be a table ([tool.txscan.lint])", value)
    return dict(value)


# key in [tool.txscan] -> (Config field, validator). The one place a setting is declared.
KEYS = {
    "cda": ("cda", _cda),
    "exclude": ("exclude", _string_list),
    "depth": ("depth", _positive_int),
    "max-file-bytes": ("max_file_bytes", _positive_int),
    "cda-entities": ("cda_entities", _cda_entities),
    "effects": ("extra_effects", lambda p, k, v: _string_table(p, k, v, "callee -> effect category strings")),
    "statements": ("extra_statements",
                   lambda p, k, v: _string_table(p, k, v, "callee -> statement kind strings", STATEMENT_KINDS)),
    "lint": ("lint", _lint),
}


def load(root: Path, explicit: Path | None = None) -> Config:
    """The settings of a scan: `explicit` must exist; root/pyproject.toml is optional."""
    path = explicit or (root / "pyproject.toml")
    if explicit is not None and not explicit.is_file():
        raise ConfigError(explicit, None, "settings file does not exist" if not explicit.exists()
                          else "settings file is not a regular file")
    if not path.is_file():
        return Config()
    import tomllib  # here: most scanned projects have no pyproject.toml (2.5 ms of a scan's start-up)

    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, None, f"not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"not valid UTF-8 at byte {exc.start}") from exc
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(path, None, "[tool] must be a table", tool)
    section = tool.get("txscan", {})
    if not isinstance(section, dict):
        raise ConfigError(path, None, "tool.txscan must be a table ([tool.txscan])", section)
    return from_table(section, path)


def from_table(section: dict, path: Path) -> Config:
    """Validate a `[tool.txscan]` table; `path` names it in errors."""
    config = Config()
    for key in sorted(section):
        if key not in KEYS:
            raise ConfigError(path, key, "is not a txscan setting; known keys: " + ", ".join(sorted(KEYS)))
        name, validate = KEYS[key]
        setattr(config, name, validate(path, key, section[key]))
    return config

