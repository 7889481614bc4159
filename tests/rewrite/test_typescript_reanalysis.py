"""TypeScript rewrites are re-analysed by the scan's own ts-plugin process (bridge.start(serve=True)),
which reuses the scan's program for the files the edits leave unchanged, and which answers the
rewrites' syntax questions too; a scan of an edited copy (and rewrite-check.js) stand in when that
process does not answer, with the same outcome."""

from __future__ import annotations

import importlib
import shutil

import pytest

from analyzer.config import Config
from analyzer.rewrite import typescript_syntax
from analyzer.scan import scan
from analyzer.typeorm import bridge

from typeorm_projects import DEPOSIT, HEADER, write

verification = importlib.import_module("analyzer.rewrite.verify")  # (the package's `verify` is the function)

# (with an import that cannot be resolved: the re-analysis reports it as the scan does)
SERVICE = 'import { missing } from "not-installed-package";\n' + HEADER + DEPOSIT


def _verified(result) -> list[tuple]:
    return sorted((c.transaction, c.rewrite.kind, tuple(c.rewrite.edits), c.makes_one_shot)
                  for c in result.rewrites if c.rewrite is not None and c.rewrite.verified)


def test_the_scans_own_front_end_verifies_its_rewrites(tmp_path, monkeypatch):
    project = write(tmp_path, SERVICE)
    _after, by_copy = project.rewritten("one-shot", "read-modify-write")  # (verified on an edited copy)

    def no_copy(*_args, **_kwargs):
        raise AssertionError("an edited copy was scanned")

    def no_checker(_request):
        raise AssertionError("rewrite-check.js was asked")

    monkeypatch.setattr(verification, "edited_copy", no_copy)
    monkeypatch.setattr(typescript_syntax._CHECKER, "ask", no_checker)
    typescript_syntax.facts.cache_clear()  # (the copy's verification above asked for the same facts)
    result = scan(project.root, Config(), "typeorm")
    assert _verified(result) == [(by_copy.transaction, "ts-increment", tuple(by_copy.rewrite.edits), True)]


def test_a_front_end_that_does_not_answer_leaves_the_copy_to_verify(tmp_path, monkeypatch):
    project = write(tmp_path, SERVICE)
    expected = _verified(scan(project.root, Config(), "typeorm"))
    assert expected
    asked = []

    def not_answering(self, request):
        asked.append(sorted(request.get("texts", {"(syntax facts)": None})))
        raise bridge.FrontendUnavailable("the TypeScript front end's answer failed: test")

    monkeypatch.setattr(bridge.Run, "_ask", not_answering)
    typescript_syntax.facts.cache_clear()
    assert _verified(scan(project.root, Config(), "typeorm")) == expected
    assert ["src/bank.ts"] in asked and ["(syntax facts)"] in asked


def test_a_served_re_analysis_gives_the_records_of_a_scan_of_an_edited_copy(tmp_path):
    project = write(tmp_path, SERVICE)
    edited = SERVICE.replace("account.balance += amount;", "account.balance += amount * 2;\n      await em.query('select 1');")
    assert edited != SERVICE
    copy = tmp_path / "copy"
    shutil.copytree(project.root, copy)
    (copy / "src" / "bank.ts").write_text(edited)
    expected = bridge.run(copy, autocommit=False, walkFiles=["src/bank.ts"])
    assert any(r["type"] == "diagnostic" and r["code"] == "unresolved-import" for r in expected)

    served = bridge.start(project.root, serve=True)
    try:
        assert served.serving
        served.records()
        assert served.reanalyse({"src/bank.ts": edited}, ["src/bank.ts"])[1:] == expected[1:]
        unchanged = served.reanalyse({}, ["src/bank.ts"])
        assert unchanged[1:] == bridge.run(project.root, autocommit=False, walkFiles=["src/bank.ts"])[1:]
        with pytest.raises(bridge.FrontendUnavailable, match="could not answer: .*not a path under the scanned root"):
            served.reanalyse({"../outside.ts": "export {};"}, [])
        assert served.serving  # (a refused request ends nothing)
        question = {"files": [{"path": "src/bank.ts", "text": edited, "line": 10}, {"path": "x.ts", "text": "let = ;"}]}
        assert served.syntax_facts(question) == typescript_syntax._CHECKER.ask(question)
    finally:
        served.finish()
    assert not served.serving
    with pytest.raises(bridge.FrontendUnavailable, match="not serving"):
        served.reanalyse({}, ["src/bank.ts"])
    with pytest.raises(bridge.FrontendUnavailable, match="not serving"):
        served.syntax_facts({"files": []})


def test_a_served_front_end_that_died_is_an_error_not_a_hang(tmp_path):
    project = write(tmp_path, SERVICE)
    served = bridge.start(project.root, serve=True, timeout=60)
    served.records()
    served._process.kill()
    served._process.wait()
    with pytest.raises(bridge.FrontendUnavailable, match="answer failed"):
        served.reanalyse({}, ["src/bank.ts"])
    assert not served.serving
    with pytest.raises(bridge.FrontendUnavailable, match="killed by SIGKILL"):
        served.finish()


def test_a_scan_without_rewrites_starts_no_serving_front_end(tmp_path, monkeypatch):
    project = write(tmp_path, SERVICE)
    started = []
    real_start = bridge.start

    def recording(*args, **kwargs):
        started.append(kwargs.get("serve", False))
        return real_start(*args, **kwargs)

    monkeypatch.setattr(bridge, "start", recording)
    scan(project.root, Config(), "typeorm", rewrites=False)
    scan(project.root, Config(), "typeorm")
    assert started == [False, True]
