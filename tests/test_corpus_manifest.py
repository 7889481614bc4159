"""corpus/real.toml: the manifest of real applications loads with the survey's own loader and
holds a corpus at the study's scale (at least 111 applications, each pinned to a commit)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from analyzer.survey import manifest

REAL = Path(__file__).resolve().parent.parent / "corpus" / "real.toml"
COMMIT = re.compile(r"[0-9a-f]{40}")
GITHUB = re.compile(r"https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


@pytest.fixture(scope="module")
def apps() -> list[manifest.App]:
    return manifest.load(REAL)


@pytest.fixture(scope="module")
def raw() -> list[dict]:
    return tomllib.loads(REAL.read_text("utf-8"))["app"]


def test_manifest_holds_at_least_111_applications(apps):
    assert len(apps) >= 111


def test_both_orms_are_represented(apps):
    by_orm = {orm: sum(app.orm == orm for app in apps) for orm in ("django", "typeorm")}
    assert set(app.orm for app in apps) <= {"django", "typeorm"}
    assert by_orm["django"] >= 40 and by_orm["typeorm"] >= 30, by_orm


def test_names_are_unique(raw):
    names = [entry["name"] for entry in raw]
    assert len(names) == len(set(names))


def test_every_entry_has_url_commit_and_subdir(raw):
    for entry in raw:
        for key in ("url", "commit", "subdir", "orm"):
            assert key in entry, f"{entry['name']} has no {key}"


def test_commits_are_full_sha1(apps):
    for app in apps:
        assert COMMIT.fullmatch(app.commit), f"{app.name}: {app.commit!r}"


def test_urls_are_public_github_repositories(apps):
    for app in apps:
        assert GITHUB.fullmatch(app.url), f"{app.name}: {app.url!r}"


def test_repositories_are_listed_once(apps):
    urls = [app.url.lower() for app in apps]
    assert len(urls) == len(set(urls))


def test_subdirs_are_relative_paths_inside_the_checkout(apps):
    for app in apps:
        path = Path(app.subdir)
        assert not path.is_absolute() and ".." not in path.parts, f"{app.name}: {app.subdir!r}"


def test_checkout_folder_is_the_application_name(apps, tmp_path):
    # The survey finds each application at <checkouts>/<name>/<subdir>.
    for app in apps:
        assert app.folder(tmp_path) == tmp_path / app.name / app.subdir


def test_size_figures_are_positive_integers(raw):
    for entry in raw:
        assert isinstance(entry.get("files"), int) and entry["files"] > 0, entry["name"]
        assert isinstance(entry.get("lines"), int) and entry["lines"] >= entry["files"], entry["name"]
