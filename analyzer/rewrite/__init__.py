"""Rewrites of transaction code that are checked before they are shown: the rewritten files
parse, name only what the entities have, and a re-analysis of the rewritten project confirms
the claim (the effect left the transaction, the transaction is one-shot, the statement is
key-inferable). What cannot be verified is said in prose, never as code.

    rewrites_for(root, result, transaction_id) -> list[Rewrite]   (the verified ones)
    verified_candidates(root, result) -> every suggestion's rewrite, or why there is none
    apply(text, edits) -> str
"""

from __future__ import annotations

from pathlib import Path

from . import compile_later, python_top_level, typescript_syntax
from .edits import Edit, EditConflict, Rewrite, apply
from .plan import Candidate, candidates
from .verify import check, verify

__all__ = ["Edit", "EditConflict", "Rewrite", "apply", "rewrites_for", "verified_candidates"]


def verified_candidates(root: Path, result, config=None, ids=None, assume_compiles: bool = True) -> list[Candidate]:
    """Every suggestion of the scan (or of the transactions `ids`) with its rewrite, verified or
    refused with the reason. A scan with a warm cache folder reuses the plans and verifications
    kept there whose inputs did not change (analyzer/cache/rewrites.py; `Candidate.reused`).
    With `assume_compiles`, shared planning may assume that the files it reads compile; where
    one does not, everything is done again without that assumption (compile_later.py)."""
    if config is None:
        config = _config(root)
    cache = getattr(result, "cache", None)
    reuse = None
    if ids is None and cache is not None and cache.folder is not None:
        from ..cache.rewrites import RewriteReuse

        reuse = RewriteReuse(cache, root, result, config)
    entities = {r["name"]: r for r in result.records if r["type"] == "entity"}
    texts: dict[str, str] = {}  # the files planning read, read once for the checks too
    ahead = getattr(result, "outlines_ahead", None)
    if ahead is not None:
        try:
            ahead.take(texts)  # outlines worked out while the scan finished (outline_ahead.py)
        finally:
            result.outlines_ahead = None
    try:
        # (TypeScript: the scan's own ts-plugin process answers the syntax questions of planning too)
        with typescript_syntax.answered_by(getattr(result, "served", None)):
            return _verified(root, result, config, ids, assume_compiles, reuse, entities, texts, cache)
    finally:
        if ahead is not None:
            python_top_level.tell({})


def _verified(root: Path, result, config, ids, assume_compiles: bool, reuse, entities: dict, texts: dict,
              cache) -> list[Candidate]:
    assumed = compile_later.Assumed() if assume_compiles else None
    try:
        found = candidates(root, result.frontend, result.records, result.analyses, ids, reuse,
                           then=lambda candidate: check(root, candidate, entities, texts), texts=texts,
                           assumed=assumed)
        if assumed is not None:
            assumed.start()  # compiled on the other core while the rewrites are re-analysed
        verify(root, result.frontend, config, found, entities, cache, reuse, getattr(result, "context", None), texts,
               getattr(result, "served", None))
        held = assumed is None or assumed.holds()
    except BaseException:
        if assumed is not None:
            assumed.abandon()
        raise
    if not held:
        compile_later.forget_outlines()
        return verified_candidates(root, result, config, ids, assume_compiles=False)
    if reuse is not None:
        reuse.save()
    return found


def rewrites_for(root: Path, result, transaction_id: str) -> list[Rewrite]:
    """The verified rewrites of one transaction of `result` (a ScanResult of `root`): those the
    scan verified already (`scan(..., rewrites=True)`, the default), else verified now."""
    found = [c for c in result.rewrites if c.transaction == transaction_id] if result.rewrites else \
        verified_candidates(root, result, ids={transaction_id})
    return [c.rewrite for c in found if c.rewrite is not None and c.rewrite.verified]


def _config(root: Path):
    from .. import config as config_mod

    try:
        return config_mod.load(root)
    except config_mod.ConfigError:
        return config_mod.Config()
