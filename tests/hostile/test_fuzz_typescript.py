"""Mutated TypeScript sources (hypothesis-driven edits of the samples' .ts files), through the
whole scan (node front end, bridge, core): no crash, deterministic output.
Budget: see fuzz.py (ci profile: 4 examples, each two node runs)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from fuzz import examples, scan_twice
from hostile_inputs import SAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

LEDGER = SAMPLES / "typeorm" / "express-ledger"
NEST = SAMPLES / "typeorm" / "nest-shop"
# Transaction-bearing files of the samples: what a mutation starts from.
TARGETS = sorted(p for p in [*(LEDGER / "src").rglob("*.ts"), *(NEST / "src").rglob("*.ts")]
                 if "transaction" in p.read_text("utf-8").lower() or "Transaction" in p.read_text("utf-8"))
TOKENS = ["(", ")", "{", "}", "[", "]", "await ", "async ", "return ", ";", "\n", "\r", "\r\n", "\u2028",
          "\f", "\ufeff", "'", '"', "`", "${", "/*", "//", "=>", ".transaction(", "manager.", ".save(", "if (x) ",
          "for (const a of b) ", "@Transactional()\n", "queryRunner.startTransaction();", "\\", "\udcff", "\x00"]


@st.composite
def mutation(draw, size: int):
    kind = draw(st.sampled_from(["delete", "duplicate", "insert", "swap"]))
    start = draw(st.integers(0, size))
    end = min(size, start + draw(st.integers(0, 200)))
    token = draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)))
    return kind, start, end, token


def mutate(text: str, edits) -> str:
    for kind, start, end, token in edits:
        start, end = min(start, len(text)), min(end, len(text))
        if kind == "delete":
            text = text[:start] + text[end:]
        elif kind == "duplicate":
            text = text[:end] + text[start:end] + text[end:]
        elif kind == "insert":
            text = text[:start] + token + text[start:]
        else:  # move a chunk elsewhere
            chunk = text[start:end]
            rest = text[:start] + text[end:]
            text = rest[: len(rest) // 2] + chunk + rest[len(rest) // 2:]
    return text


@settings(max_examples=examples(4))
@given(data=st.data())
def test_mutated_typescript_sources(data):
    target = data.draw(st.sampled_from(TARGETS))
    original = target.read_text("utf-8")
    edits = data.draw(st.lists(mutation(len(original)), min_size=1, max_size=4))
    app_root = LEDGER if LEDGER in target.parents else NEST
    root = Path(tempfile.mkdtemp(prefix="txscan-fuzz-ts-"))
    try:
        # The entities and the mutated file: a small program, so each node run stays short.
        for entities in (app_root / "src").rglob("entities"):
            shutil.copytree(entities, root / entities.relative_to(app_root))
        shutil.copy(app_root / "package.json", root / "package.json")
        relative = target.relative_to(app_root)
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(mutate(original, edits).encode("utf-8", "surrogatepass"))
        scan_twice(root)
    finally:
        shutil.rmtree(root)
