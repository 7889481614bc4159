"""Abstract values the walker tracks for each name: where a value came from, and what it is.

A `Val` is deliberately small and immutable: `sources` say where the data came from (docs/IR.md
"sources"); `kind` says what the object is as far as the ORM is concerned (a model class, a
lazy queryset, a fetched row, a related manager, an external client, ...).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

Source = tuple[str, str]  # (kind, name-or-step-id)

UNKNOWN: frozenset[Source] = frozenset({("unknown", "")})


_EMPTY: frozenset = frozenset()


@dataclass(frozen=True, init=False)
class QuerySet:
    entity: str
    predicates: tuple = ()          # predicate dicts (docs/IR.md), ANDed
    lock: bool = False
    dynamic: bool = False
    chain: tuple[str, ...] = ()     # methods applied, for the statement's api name
    uses: frozenset[str] = frozenset()
    select_related: frozenset[str] = frozenset()
    through: str | None = None      # m2m through entity for related managers (`Post.tags`)
    owner: "Val | None" = None      # the instance a related manager hangs from
    owner_attr: str | None = None   # the FK attribute on `entity` pointing at the owner
    provider_classes: tuple[str, ...] = ()  # app classes with custom queryset methods
    cached: str | None = None       # step whose rows this queryset object has cached (evaluated once)
    prefetch: tuple = ()            # ((lookup, predicates of a Prefetch queryset), ...) read on evaluation

    # Written out (the fields in their order and with their defaults): the walk makes hundreds of
    # thousands of these, and a frozen dataclass's own __init__ sets each field through
    # object.__setattr__, about three times slower. tests/test_values.py checks it matches the fields.
    def __init__(self, entity, predicates=(), lock=False, dynamic=False, chain=(), uses=_EMPTY,
                 select_related=_EMPTY, through=None, owner=None, owner_attr=None, provider_classes=(),
                 cached=None, prefetch=()) -> None:
        fields = self.__dict__
        fields["entity"] = entity
        fields["predicates"] = predicates
        fields["lock"] = lock
        fields["dynamic"] = dynamic
        fields["chain"] = chain
        fields["uses"] = uses
        fields["select_related"] = select_related
        fields["through"] = through
        fields["owner"] = owner
        fields["owner_attr"] = owner_attr
        fields["provider_classes"] = provider_classes
        fields["cached"] = cached
        fields["prefetch"] = prefetch


@dataclass(frozen=True, init=False)
class Val:
    kind: str = "plain"  # plain|model|qs|instance|rows|ref|func|class|obj|self|extobj|email|cursor|q|pair|lambda|super
    sources: frozenset[Source] = frozenset()
    entity: str | None = None
    qs: QuerySet | None = None
    origin: str | None = None        # step id that produced the row(s); "new" for a constructed instance
    key: frozenset[Source] = frozenset()
    assigned: tuple = ()             # ((attribute, sources, text), ...) set on an instance in code
    ref: str | None = None           # qualified name (ref/func/class/obj/extobj)
    items: tuple = ()                # tuple members (get_or_create pair, literal tuples)
    category: str | None = None      # effect category of an external client object
    predicate: dict | None = None    # for Q objects
    text: str = ""
    prefetched: frozenset[str] = frozenset()
    attrs: tuple = ()                # ((name, Val), ...) for objects/self

    # Written out, as QuerySet's is (the walk's most made object).
    def __init__(self, kind="plain", sources=_EMPTY, entity=None, qs=None, origin=None, key=_EMPTY, assigned=(),
                 ref=None, items=(), category=None, predicate=None, text="", prefetched=_EMPTY, attrs=()) -> None:
        fields = self.__dict__
        fields["kind"] = kind
        fields["sources"] = sources
        fields["entity"] = entity
        fields["qs"] = qs
        fields["origin"] = origin
        fields["key"] = key
        fields["assigned"] = assigned
        fields["ref"] = ref
        fields["items"] = items
        fields["category"] = category
        fields["predicate"] = predicate
        fields["text"] = text
        fields["prefetched"] = prefetched
        fields["attrs"] = attrs

    def with_sources(self, sources) -> "Val":
        return replace(self, sources=frozenset(sources))

    def assigned_map(self) -> dict:
        return {attr: (sources, text) for attr, sources, text in self.assigned}

    def attr_map(self) -> dict:
        return dict(self.attrs)


def replace(obj, **changes):
    """dataclasses.replace, without its per-field bookkeeping for the walk's own values (Val,
    QuerySet: a copy of the fields with `changes` over them); anything else goes to it."""
    cls = obj.__class__
    if cls is not Val and cls is not QuerySet:
        return dataclasses.replace(obj, **changes)
    new = object.__new__(cls)
    fields = new.__dict__
    fields.update(obj.__dict__)
    for name in changes:
        if name not in fields:
            raise TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument '{name}'")
    fields.update(changes)
    return new


def plain(sources=(), text: str = "") -> Val:
    return Val("plain", frozenset(sources), text=text)


def constant(text: str = "") -> Val:
    return Val("plain", frozenset({("constant", text[:40])}), text=text)


def union(vals) -> frozenset[Source]:
    out: set[Source] = set()
    for v in vals:
        if v is not None:
            out |= value_sources(v)
    return frozenset(out)


def value_sources(val: Val) -> frozenset[Source]:
    """The sources of a value when it is used as data (an instance stands for its key)."""
    if val.kind == "instance":
        return val.key or (frozenset({("result", val.origin)}) if val.origin and val.origin != "new" else val.sources)
    return val.sources


def ir_sources(sources) -> list[dict]:
    out = []
    for kind, name in sorted(sources):
        if kind in ("result", "generated", "external"):
            out.append({"kind": kind, "step": name})
        elif name:
            out.append({"kind": kind, "name": name})
        else:
            out.append({"kind": kind})
    return out or [{"kind": "unknown"}]


def step_ids(sources) -> list[str]:
    return sorted({name for kind, name in sources if kind in ("result", "generated", "external")})
