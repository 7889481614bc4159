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

    def with_sources(self, sources) -> "Val":
        return replace(self, sources=frozenset(sources))

    def assigned_map(self) -> dict:
        return {attr: (sources, text) for attr, sources, text in self.assigned}

    def attr_map(self) -> dict:
        return dict(self.attrs)


def _write_init_out(cls: type) -> type:
    """Give a frozen dataclass an __init__ that stores its fields straight into the instance's
    dict: the walk makes hundreds of thousands of Vals, and a frozen dataclass's own __init__ sets
    each field through object.__setattr__, about three times slower. Same parameters, order and
    defaults (tests/test_values.py)."""
    fields = dataclasses.fields(cls)
    defaults = {f"_default_{f.name}": f.default for f in fields if f.default is not dataclasses.MISSING}
    parameters = ", ".join(f.name if f.default is dataclasses.MISSING else f"{f.name}=_default_{f.name}"
                           for f in fields)
    body = "".join(f"\n    fields[{f.name!r}] = {f.name}" for f in fields)
    namespace: dict = {}
    exec(f"def __init__(self, {parameters}) -> None:\n    fields = self.__dict__{body}", defaults, namespace)
    namespace["__init__"].__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = namespace["__init__"]
    return cls


_write_init_out(QuerySet)
_write_init_out(Val)


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
    """A literal's value. Made once per text and shared (a Val is never changed): the walk
    evaluates the same string literals and defaults at every call of the helpers holding them."""
    found = _CONSTANTS.get(text)
    if found is None:
        if len(_CONSTANTS) >= _CONSTANTS_LIMIT:
            _CONSTANTS.clear()
        found = _CONSTANTS[text] = Val("plain", frozenset({("constant", text[:40])}), text=text)
    return found


_CONSTANTS: dict[str, Val] = {}
_CONSTANTS_LIMIT = 50_000


def forget_constants() -> None:
    """Drop the shared literals (at the end of a scan's walks: not kept into its later phases)."""
    _CONSTANTS.clear()


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
