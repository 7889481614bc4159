"""Conflict detection attributes (CDA) per entity, in the modes of TAXONOMY.md.

- `pk`: the CDA of every entity is its primary key.
- `auto`: the study's chain algorithm, made schema-aware. For every statement that selects
  rows of an entity, take the set of (normalised) attributes it filters on; hang each
  distinct set under its smallest superset; pick the root-to-node chain covering the most
  statements. Every set on that chain is a prefix of the entity's composite CDA. A
  primary-key lookup is never a mismatch, whatever the chain.
- configuration (`[tool.txscan.cda]` or `--cda-entity`) fixes an entity's CDA set.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .flatten import predicate_terms

PK = "pk"


@dataclass(frozen=True)
class EntityCDA:
    entity: str
    mode: str  # "pk" | "auto" | "config"
    # Attribute sets that count as pinning the CDA (besides any set holding `pk`).
    chain: tuple[frozenset[str], ...] = field(default_factory=tuple)

    @property
    def attributes(self) -> list[str]:
        """The CDA itself: the largest set on the chain, or the primary key."""
        if not self.chain:
            return [PK]
        return sorted(max(self.chain, key=lambda s: (len(s), sorted(s))))


def across_mismatch(terms: list[dict], cdas: dict[str, "EntityCDA"]) -> bool:
    """A term that joins other tables (`tags__name`: the through table, then Tag) selects rows
    there too: it needs a reconnaissance query unless each table is pinned by its CDA."""
    for term in terms:
        for hop in term.get("across", ()):
            attribute = hop["attribute"]
            cda = cdas.get(hop["entity"])
            chain = cda.chain if cda is not None else ()
            if attribute != PK and not any(s and s <= {attribute} for s in chain):
                return True
    return False


def statement_attribute_set(statement: dict) -> frozenset[str]:
    return frozenset(t["attribute"] for t in predicate_terms(statement.get("predicate")))


def choose_chain(sets: Counter) -> tuple[frozenset[str], ...]:
    """The study's chain: the root-to-node path in the superset tree covering most statements."""
    distinct = sorted(sets, key=lambda s: (-len(s), sorted(s)))
    parent: dict[frozenset, frozenset | None] = {}
    for index, current in enumerate(distinct):
        supersets = [s for s in distinct[:index] if current < s]
        parent[current] = min(supersets, key=lambda s: (len(s), sorted(s))) if supersets else None
    best: tuple[int, list[str], tuple] = (-1, [], ())
    for node in distinct:
        chain = []
        cursor: frozenset | None = node
        while cursor is not None:
            chain.append(cursor)
            cursor = parent[cursor]
        covered = sum(sets[s] for s in chain)
        tie = sorted(",".join(sorted(s)) for s in chain)
        if covered > best[0] or (covered == best[0] and tie < best[1]):
            best = (covered, tie, tuple(reversed(chain)))
    return best[2]


def statement_inputs(statements: list[dict], weights: dict[int, int] | None = None) -> list[list]:
    """What each statement gives the CDA computation: [entity, the attribute set it selects rows
    by (sorted; None when it selects none the chain can use), how many times it counts]. Kept per
    transaction by the warm cache (core/reuse.py)."""
    weights = weights or {}
    out = []
    for s in statements:
        if s.get("entity"):
            usable = s.get("predicate") is not None and not s.get("dynamic") and statement_attribute_set(s)
            out.append([s["entity"], sorted(statement_attribute_set(s)) if usable else None, weights.get(id(s), 1)])
    return out


def compute(mode: str, inputs: list[list], configured: dict[str, list[str]]) -> dict[str, EntityCDA]:
    """`inputs`: every statement's `statement_inputs` (a statement a `repeat` step runs again
    counts once per run, as its copies would)."""
    by_entity: dict[str, Counter] = {}
    for entity, attributes, weight in inputs:
        sets = by_entity.setdefault(entity, Counter())
        if attributes is not None:
            sets[frozenset(attributes)] += weight
    result: dict[str, EntityCDA] = {}
    for entity, sets in sorted(by_entity.items()):
        if entity in configured:
            result[entity] = EntityCDA(entity, "config", (frozenset(configured[entity]),))
        elif mode == "auto":
            result[entity] = EntityCDA(entity, "auto", choose_chain(sets) if sets else ())
        else:
            result[entity] = EntityCDA(entity, "pk")
    for entity, attrs in configured.items():
        result.setdefault(entity, EntityCDA(entity, "config", (frozenset(attrs),)))
    return result
