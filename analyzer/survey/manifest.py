"""Corpus manifests (TOML): which applications a survey scans.

    [[app]]
    name = "saleor"                                   # unique; the store's application name
    url = "https://github.com/saleor/saleor"          # where a user clones it from
    commit = "723cd4eba87dfc72822ade45dc08a3caa548428d"
    orm = "django"                                    # or "typeorm"
    subdir = "saleor"                                 # folder to scan inside the checkout
    checkout = "saleor"                               # folder under --checkouts (default: name)

Other keys (description, files, lines) are kept as information. A manifest that is not a
readable UTF-8 TOML file, an entry without a name or with a value of the wrong type, an orm
other than the two, a subdir or checkout outside the checkouts folder, or a name listed twice
is refused with one line naming the file, the entry and the reason.
"""

from __future__ import annotations

import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ManifestError(Exception):
    pass


@dataclass(frozen=True)
class App:
    name: str
    orm: str
    url: str | None = None
    commit: str | None = None
    subdir: str = "."
    checkout: str | None = None
    extra: dict = field(default_factory=dict, compare=False)

    def folder(self, checkouts: Path) -> Path:
        return checkouts / (self.checkout or self.name) / self.subdir

    def clone_command(self, checkouts: Path) -> str:
        target = checkouts / (self.checkout or self.name)
        if not self.url:
            return f"(no url in the manifest; put the application in {target})"
        command = f"git clone {self.url} {target}"
        if self.commit:
            command += f" && git -C {target} checkout {self.commit}"
        return command


STRING_KEYS = ("name", "orm", "url", "commit", "subdir", "checkout")
ORMS = ("django", "typeorm")


def load(path: Path) -> list[App]:
    """The applications of a manifest; any problem is one ManifestError line: file, entry, reason."""
    data = _read(path)
    entries = data.get("app")
    if entries is None:
        raise ManifestError(f"{path}: no [[app]] entries")
    if not isinstance(entries, list):
        raise ManifestError(f"{path}: `app` must be an array of tables ([[app]]), not {_kind(entries)}")
    apps, seen = [], set()
    for index, entry in enumerate(entries, 1):
        app = _app(path, index, entry)
        if app.name in seen:
            raise ManifestError(f"{path}: [[app]] #{index} ({app.name!r}): the name {app.name!r} is listed twice")
        seen.add(app.name)
        apps.append(app)
    if not apps:
        raise ManifestError(f"{path}: no [[app]] entries")
    return apps


MAX_BYTES = 16 * 1024 * 1024  # far above any corpus; a bound so a wrong path cannot exhaust memory


def _read(path: Path) -> dict:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ManifestError(f"{path}: is a folder, not a manifest file")
        if not stat.S_ISREG(info.st_mode):
            raise ManifestError(f"{path}: is not a regular file")
        if info.st_size > MAX_BYTES:
            raise ManifestError(f"{path}: {info.st_size} bytes is too large for a manifest")
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise ManifestError(f"{path}: no such manifest") from exc
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read the manifest: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from exc


def _app(path: Path, index: int, entry) -> App:
    where = f"{path}: [[app]] #{index}"
    if not isinstance(entry, dict):
        raise ManifestError(f"{where}: must be a table, not {_kind(entry)}")
    if "name" in entry and isinstance(entry["name"], str):
        where += f" ({entry['name']!r})"
    if "name" not in entry:
        raise ManifestError(f"{where}: has no name")
    for key in STRING_KEYS:
        if key in entry and not isinstance(entry[key], str):
            raise ManifestError(f"{where}: {key} must be a string, not {_kind(entry[key])}")
    name = entry["name"]
    if not name.strip() or "/" in name or "\\" in name or name in (".", ".."):
        raise ManifestError(f"{where}: name must be a non-empty name without slashes, not {name!r}")
    orm = entry.get("orm", "django")
    if orm not in ORMS:
        raise ManifestError(f"{where}: orm must be 'django' or 'typeorm', not {orm!r}")
    for key in ("subdir", "checkout"):
        value = entry.get(key)
        if value is not None and (not value or Path(value).is_absolute() or ".." in Path(value).parts):
            raise ManifestError(f"{where}: {key} must be a relative path inside the checkouts, not {value!r}")
    known = set(STRING_KEYS)
    return App(name=name, orm=orm, url=entry.get("url"), commit=entry.get("commit"),
               subdir=entry.get("subdir", "."), checkout=entry.get("checkout"),
               extra={k: v for k, v in entry.items() if k not in known})


def _kind(value) -> str:
    """A TOML value's type in the manifest's words (for messages)."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
             dict: "a table"}
    return names.get(type(value), type(value).__name__)
