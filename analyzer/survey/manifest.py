"""Corpus manifests (TOML): which applications a survey scans.

    [[app]]
    name = "saleor"                                   # unique; the store's application name
    url = "https://github.com/saleor/saleor"          # where a user clones it from
    commit = "723cd4eba87dfc72822ade45dc08a3caa548428d"
    orm = "django"                                    # or "typeorm"
    subdir = "saleor"                                 # folder to scan inside the checkout
    checkout = "saleor"                               # folder under --checkouts (default: name)

Other keys (description, files, lines) are kept as information.
"""

from __future__ import annotations

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


def load(path: Path) -> list[App]:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError as exc:
        raise ManifestError(f"{path}: no such manifest") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from exc
    apps, seen = [], set()
    for index, entry in enumerate(data.get("app", []), 1):
        if not isinstance(entry, dict) or "name" not in entry:
            raise ManifestError(f"{path}: [[app]] number {index} has no name")
        name = str(entry["name"])
        if name in seen:
            raise ManifestError(f"{path}: application {name!r} is listed twice")
        seen.add(name)
        orm = entry.get("orm", "django")
        if orm not in ("django", "typeorm"):
            raise ManifestError(f"{path}: {name}: orm must be 'django' or 'typeorm', not {orm!r}")
        known = {"name", "orm", "url", "commit", "subdir", "checkout"}
        apps.append(App(name=name, orm=orm, url=entry.get("url"), commit=entry.get("commit"),
                        subdir=str(entry.get("subdir", ".")), checkout=entry.get("checkout"),
                        extra={k: v for k, v in entry.items() if k not in known}))
    if not apps:
        raise ManifestError(f"{path}: no [[app]] entries")
    return apps
