"""Per-function summaries: the walk of one function in one calling context, computed once per
scan and instantiated at every call with the same context (issue: helpers inlined at every
call site made dense code bases exponential, so the walk had to stop at a fixed depth).

A summary is exact, not an approximation: instantiating it gives the steps, return value and
guards that walking the function again at that call would give, byte for byte. That is what
keeps call-site inlining's precision (literal arguments folding branches, receiver types known
only at the call, the caller's values flowing into keys and filters), because all of that is in
the key. The key of a call is the function and its arguments, receiver and the flags the walk
reads (inside a loop, at a call site that `super().save()` reports), with the step ids the
arguments carry replaced by placeholders: the same helper called with "the row read by some
earlier statement" shares one summary whatever that statement's id is.

What else a walk depends on is recorded while the function is walked (a `Frame`) and checked
before a summary is reused:
- the call stack: which functions the walk found on the stack (a recursive call it cut) and
  which it followed; a summary is reused only under a stack that answers the same;
- the per-transaction cache of foreign-key reads: a summary that used a row read before it was
  called is not kept; one that read a foreign key is reused only where that read was not done
  yet, and its read enters the cache as a walk would have left it;
- the depth: a summary records how deep below its call it went, and is reused only where that
  stays under the depth limit; a walk cut by the depth limit or the call budget is not kept
  (its cut is reported where it happens, as before).
Recursion needs no separate fixed point: a recursive call is cut on the stack, and the summary
of a function in a cycle records the cut, so it is reused only where the same cut happens.

Within one transaction, a call whose instance would be an earlier one's again (same context, a
stack that answers the same) is not copied: the IR gets a `repeat` step naming the ids of the
first instance's steps (`same_as`) and, where the caller's steps bound to the placeholders
differ, which of the first instance's bound steps stand for which of this call's (`bind`); the
call returns the first instance's values with those steps replaced. That keeps a transaction's IR polynomial in its
distinct calls, not in its call paths, so the walk needs no depth bound (docs/IR.md, "repeat").
The table of instances (`InstanceTable`) is part of what a summary depends on: a summary records
the instances registered during its walk (registered again where it is instantiated) and the
lookups that found nothing (it is reused only where they still find nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .values import QuerySet, Val, forget_constants, replace

STEP_KINDS = ("result", "generated", "external")

# Whether summaries are reused (False: every call is walked again, as plain inlining does; the
# tests compare both).
REUSE = True
# Whether a call repeating an earlier instance in the same transaction becomes a `repeat` step
# (False: its steps are copied again, as plain inlining does; the tests compare the verdicts).
REPEAT = True


class Uncacheable(Exception):
    """The walk's output mentions a step the call context does not account for."""


@dataclass
class Frame:
    """One function being walked for a summary: what its walk depended on so far."""

    base_stack: frozenset
    base_depth: int
    counter: int          # the recorder's step counter when the walk started
    calls: int            # the recorder's followed-call count when the walk started
    diagnostics: int      # how many diagnostics the recorder held when the walk started
    queried: set = field(default_factory=set)        # functions looked up on the stack
    fk_inserted: dict = field(default_factory=dict)  # foreign-key reads this walk added
    fk_external: bool = False    # used a foreign-key read done before the call
    fk_used: dict = field(default_factory=dict)      # those reads: key -> the value it found
    cut: bool = False            # a depth-limit or budget cut below: depends on the path
    deepest: int = -1            # depth of the deepest walker that tried to follow a call
    reached: set = field(default_factory=set)        # functions whose definitions were walked
    missed: set = field(default_factory=set)         # instance-table keys looked up and not found
    registered: list = field(default_factory=list)   # (key, Entry) registered during the walk
    repeats_outside: bool = False  # repeated an instance that began before this walk


@dataclass
class Summary:
    steps: list
    value: Val
    self_after: Val | None
    raise_guards: frozenset
    diagnostics: list
    fk: dict                     # canonical key -> canonical value
    on_stack: frozenset          # functions the walk found on the caller's stack
    off_stack: frozenset         # functions the walk looked up and did not find there
    height: int                  # deepest call attempt below the caller (-1: none)
    calls: int                   # calls followed, this one included
    locals: int                  # step ids the walk allocated
    reached: frozenset
    instances: list = field(default_factory=list)   # (canonical key, canonical Entry) registered
    misses: frozenset = frozenset()                 # canonical instance keys looked up in vain
    pending: tuple | None = None                    # what `resolve` makes the fields above from
    # Cut by the depth limit below it, this many levels under the limit (None: not cut). Kept
    # only for walks whose steps are thrown away (Recorder.values_only): see SummaryStore.find.
    cut_at: int | None = None

    @property
    def cut(self) -> bool:
        return self.cut_at is not None


class FkCache(dict):
    """The per-transaction cache of foreign-key reads, telling open frames what they used."""

    def __init__(self, frames: list) -> None:
        super().__init__()
        # The recorder's open frames, not the recorder: no reference cycle, so a transaction's
        # walk state is freed by its reference count when the walk ends (analyzer/process.py).
        self.frames = frames
        self.by_step: dict[str, set] = {}   # step id -> the keys naming it (a row's reads)

    def __getitem__(self, key):
        value = super().__getitem__(key)
        for frame in reversed(self.frames):
            if key in frame.fk_inserted:
                break
            frame.fk_external = True
            frame.fk_used.setdefault(key, value)
        return value

    def __setitem__(self, key, value) -> None:
        if self.frames:
            self.frames[-1].fk_inserted[key] = value
        for sid in _key_ids(key):
            self.by_step.setdefault(sid, set()).add(key)
        super().__setitem__(key, value)

    def clear(self) -> None:
        self.by_step.clear()
        super().clear()

    def keys_naming(self, steps) -> int:
        """How many reads are cached for the rows these steps read."""
        found: set = set()
        for sid in steps:
            found |= self.by_step.get(sid, set())
        return len(found)


class StackView:
    """The walker's call stack; membership tests are recorded in the innermost open frame."""

    __slots__ = ("names", "recorder")

    def __init__(self, names: frozenset, recorder) -> None:
        self.names = names
        self.recorder = recorder

    def __contains__(self, qualname) -> bool:
        if self.recorder.frames:
            self.recorder.frames[-1].queried.add(qualname)
        return qualname in self.names

    def __or__(self, other) -> frozenset:
        return self.names | frozenset(other)

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def close_frame(recorder, frame: Frame) -> None:
    """Pop `frame` and fold what it depended on into the frame around it."""
    popped = recorder.frames.pop()
    assert popped is frame
    if recorder.frames:
        parent = recorder.frames[-1]
        parent.queried |= frame.queried
        parent.fk_inserted.update(frame.fk_inserted)
        parent.cut = parent.cut or frame.cut
        parent.deepest = max(parent.deepest, frame.deepest)
        parent.reached |= frame.reached
        parent.missed |= frame.missed
        parent.registered.extend(frame.registered)


# ---------------------------------------------------------------------------- relabelling
def _is_step_id(text) -> bool:
    return isinstance(text, str) and len(text) > 1 and text[0] == "s" and text[1:].isdigit()


def _source_sort_key(source: dict) -> tuple:
    return (source.get("kind", ""), source.get("step") or source.get("name", ""))


# Values data() gives back as they are, checked first.
_ATOMS = frozenset({str, int, float, bool, type(None)})


class Relabel:
    """Rename step ids throughout values and steps; lists the IR keeps sorted stay sorted."""

    def __init__(self, rename) -> None:
        self.rename = rename

    def ids(self, text):
        return self.rename(text)

    def sources(self, sources: frozenset) -> frozenset:
        if not isinstance(sources, frozenset):
            sources = frozenset(sources)
        others, steps = split_steps(sources)
        if not steps:
            return sources
        # Only step sources are renamed, in the order of their ids (placeholders are numbered
        # in that order); the others stay as they are.
        rename = self.rename
        return frozenset(others + tuple([(kind, rename(sid)) for kind, sid in steps]))

    def source(self, source):
        if isinstance(source, tuple) and len(source) == 2 and source[0] in STEP_KINDS:
            return (source[0], self.rename(source[1]))
        return source

    def value(self, val):
        if val is None:
            return None
        if isinstance(val, Val) and stepless(val):
            return val  # nothing to rename: the same object (and freeze() remembers it)
        if isinstance(val, Val):
            # Fields in the order a walk's values are renamed (placeholders are numbered in the
            # order they are met); empty ones are kept as they are, without a pass over them.
            sources = self.sources(val.sources)
            qs = self.queryset(val.qs) if val.qs is not None else None
            origin = self.rename(val.origin) if _is_step_id(val.origin) or _is_placeholder(val.origin) \
                else val.origin
            key = self.sources(val.key) if val.key else val.key
            assigned = tuple((attr, self.sources(srcs), text) for attr, srcs, text in val.assigned) \
                if val.assigned else ()
            items = tuple(self.value(v) for v in val.items) if val.items else ()
            predicate = self.data(val.predicate) if val.predicate is not None else None
            attrs = tuple((name, self.value(v)) for name, v in val.attrs) if val.attrs else ()
            return Val(val.kind, sources, val.entity, qs, origin, key, assigned, val.ref, items, val.category,
                       predicate, val.text, val.prefetched, attrs)
        return self.data(val)

    def queryset(self, qs: QuerySet | None) -> QuerySet | None:
        if qs is None:
            return None
        return replace(qs, predicates=tuple(self.data(p) for p in qs.predicates),
                       uses=frozenset(self.rename(u) for u in ordered_ids(qs.uses)),
                       owner=self.value(qs.owner),
                       cached=self.rename(qs.cached) if qs.cached else qs.cached)

    def entry(self, key, value):
        """One entry of a dict: step ids under `id`/`step`, sorted lists under `uses`/`sources`."""
        if key in ("id", "step") and isinstance(value, str):
            return self.rename(value)
        if key == "same_as":
            return [self.rename(v) for v in value]
        if key == "bind":
            return {self.rename(k): self.rename(v) for k, v in value.items()}
        if key == "uses" and isinstance(value, list):
            if all(isinstance(v, str) for v in value):
                return sorted(self.rename(v) for v in value)
            return sorted((self.data(v) for v in value), key=_source_sort_key)
        if key == "sources" and isinstance(value, list):
            return sorted((self.data(v) for v in value), key=_source_sort_key)
        return self.data(value)

    def data(self, obj):
        """Steps, predicates and other JSON-shaped data."""
        if type(obj) in _ATOMS:
            return obj  # (most of a step's entries: file, line, kind, api)
        if isinstance(obj, dict):
            return {key: self.entry(key, value) for key, value in obj.items()}
        if isinstance(obj, list):
            return [self.data(v) for v in obj]
        if isinstance(obj, tuple):
            if len(obj) == 2 and obj[0] in STEP_KINDS:
                return self.source(obj)
            return tuple(self.data(v) for v in obj)
        if isinstance(obj, frozenset):
            return frozenset(self.data(v) for v in _ordered(obj))
        if isinstance(obj, Val):
            return self.value(obj)
        return obj


# Source sets met before: (the sources that are no step, the step sources in id order). The
# same few sets are relabelled again and again (a call's arguments are passed down many levels,
# every call context relabels them), and sorting them was most of a relabelling's cost. Keyed by
# the set's value (equal sets split the same way); cleared when large.
_SPLIT: dict[frozenset, tuple] = {}
_IDS: dict[frozenset, tuple] = {}


def split_steps(sources: frozenset) -> tuple[tuple, tuple]:
    """(the sources that are not steps, the step sources in the order of their ids)."""
    hit = _SPLIT.get(sources)
    if hit is None:
        steps, others = [], []
        for s in sources:
            (steps if type(s) is tuple and len(s) == 2 and s[0] in STEP_KINDS else others).append(s)
        hit = (tuple(others), tuple(_ordered(steps))) if steps else ((), ())
        if len(_SPLIT) > _MEMO_LIMIT:
            _SPLIT.clear()
        _SPLIT[sources] = hit
    return hit


def ordered_ids(ids: frozenset) -> tuple:
    """A set of step ids in the order they were allocated (memoised like split_steps)."""
    if not isinstance(ids, frozenset):
        return tuple(_ordered(ids))
    hit = _IDS.get(ids)
    if hit is None:
        hit = tuple(_ordered(ids))
        if len(_IDS) > _MEMO_LIMIT:
            _IDS.clear()
        _IDS[ids] = hit
    return hit


def _is_placeholder(text) -> bool:
    return isinstance(text, str) and text[:1] in ("#", "@") and text[1:].isdigit()


def _ordered(items):
    try:
        return sorted(items, key=_natural)
    except TypeError:
        return list(items)


def _natural(item):
    """Step ids in the order they were allocated (s9 before s10)."""
    if isinstance(item, tuple) and len(item) == 2 and _is_step_id(item[1]):
        return (item[0], int(item[1][1:]), "")
    if isinstance(item, tuple) and len(item) == 2:
        return (str(item[0]), -1, str(item[1]))
    if _is_step_id(item):
        return ("", int(item[1:]), "")
    return (str(item), -1, "")


# Vals met before, by id (the object is kept, so its id stays its own): whether a Val carries
# no step id, and its frozen form. Calls pass the same argument objects down many levels; cleared
# when large so a scan's memory does not grow with them.
_STEPLESS: dict[int, tuple] = {}
_FROZEN: dict[int, tuple] = {}
# Call arguments met before, by id (CallContext._canonical): (the object, the step ids a
# relabelling renames in it in the order it meets them, its canonical forms by their placeholders).
_CANONICAL: dict[int, tuple] = {}
_MEMO_LIMIT = 20_000
_STEP_KEYS = ("id", "step", "same_as", "bind")


def _step_sources(sources) -> bool:
    return any(type(s) is tuple and len(s) == 2 and s[0] in STEP_KINDS for s in sources)


def stepless(obj) -> bool:
    """Whether a value mentions no step id or placeholder (a relabelling leaves it as it is)."""
    if isinstance(obj, Val):
        hit = _STEPLESS.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        result = not (_step_sources(obj.sources) or _step_sources(obj.key)
                      or _is_step_id(obj.origin) or _is_placeholder(obj.origin)
                      or any(_step_sources(srcs) for _attr, srcs, _text in obj.assigned)) \
            and all(stepless(v) for v in obj.items) and all(stepless(v) for _name, v in obj.attrs) \
            and stepless(obj.qs) and stepless(obj.predicate)
        if len(_STEPLESS) > _MEMO_LIMIT:
            _STEPLESS.clear()
        _STEPLESS[id(obj)] = (obj, result)
        return result
    if isinstance(obj, QuerySet):
        return not obj.uses and not obj.cached and stepless(obj.owner) and all(stepless(p) for p in obj.predicates) \
            and stepless(obj.prefetch)
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in _STEP_KEYS or (key == "uses" and value) or not stepless(value):
                return False
        return True
    if isinstance(obj, (list, tuple)):
        if len(obj) == 2 and obj[0] in STEP_KINDS:
            return False
        return all(stepless(v) for v in obj)
    if isinstance(obj, frozenset):
        return all(stepless(v) for v in obj)
    return True


def freeze(obj):
    """A hashable form of a canonical value, for summary keys."""
    if isinstance(obj, Val):
        hit = _FROZEN.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        frozen = _hashable(obj) or ("V",) + tuple(freeze(v) for v in obj.__dict__.values())
        if len(_FROZEN) > _MEMO_LIMIT:
            _FROZEN.clear()
        _FROZEN[id(obj)] = (obj, frozen)
        return frozen
    if isinstance(obj, QuerySet):
        return _hashable(obj) or ("Q",) + tuple(freeze(v) for v in obj.__dict__.values())
    if isinstance(obj, dict):
        return ("D",) + tuple((k, freeze(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return ("T",) + tuple(freeze(v) for v in obj)
    if isinstance(obj, frozenset):
        return frozenset(freeze(v) for v in obj)
    return obj


def _hashable(obj) -> tuple | None:
    """`("h", obj)` when the value is hashable as it is (no dict inside): equal values are equal
    keys without copying them; the tag keeps these keys apart from the copied forms."""
    try:
        hash(obj)
    except TypeError:
        return None
    return ("h", obj)


# ---------------------------------------------------------------------------- call contexts
class ContextKey:
    """A call context's key, hashed once. A call looks its key up several times (summaries,
    instances, the misses of summaries it might reuse) and hashing a tuple of Vals hashes every
    field of every argument again each time (a quarter of the walk's summary bookkeeping).

    `parts` is the canonical context as it is where all of it is hashable (equal exactly when
    its frozen form would be), its frozen form otherwise (a Q object's predicate is a dict).
    The two never compare equal: the frozen form of a context is one element longer."""

    __slots__ = ("parts", "hash")

    def __init__(self, parts: tuple, hashed: int) -> None:
        self.parts = parts
        self.hash = hashed

    @classmethod
    def of(cls, canonical: tuple) -> "ContextKey":
        try:
            return cls(canonical, hash(canonical))
        except TypeError:
            frozen = freeze(canonical)
            return cls(frozen, hash(frozen))

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is ContextKey and self.hash == other.hash and self.parts == other.parts)

    def __repr__(self) -> str:
        return f"ContextKey({self.parts!r})"


class CallContext:
    """A call's arguments with the step ids they carry replaced by placeholders `#0`, `#1`, ..."""

    def __init__(self, qualname: str, positional, keywords, self_val, in_loop: bool, at_site: bool) -> None:
        self.to_placeholder: dict[str, str] = {}
        canonical = (
            qualname,
            tuple(self._canonical(v) for v in positional),
            tuple((k, self._canonical(v)) for k, v in keywords),
            self._canonical(self_val),
            in_loop, at_site,
        )
        self.key = ContextKey.of(canonical)
        self.from_placeholder = {p: sid for sid, p in self.to_placeholder.items()}

    def _canonical(self, value):
        """The argument with its step ids replaced by placeholders (numbered on, in the order a
        relabelling meets them). An argument object met before (calls hand the same objects
        down many levels) is not relabelled again where its ids get the same placeholders: the
        same canonical object comes back, and freeze() knows it too."""
        if value is None or (type(value) is Val and stepless(value)):
            return value  # nothing to relabel (Relabel.value would give it back as it is)
        if not isinstance(value, Val):
            return Relabel(self._placeholder).value(value)
        hit = _CANONICAL.get(id(value))
        if hit is not None and hit[0] is value:
            _value, order, results = hit
            placeholders = tuple([self._placeholder(sid) for sid in order])
            found = results.get(placeholders)
            if found is not None:
                return found
            mapping = dict(zip(order, placeholders))
            found = results[placeholders] = Relabel(lambda sid: mapping.get(sid, sid)).value(value)
            return found
        met: dict = {}

        def renaming(sid):
            if isinstance(sid, str):
                met.setdefault(sid, None)
            return self._placeholder(sid)

        found = Relabel(renaming).value(value)
        order = tuple(met)
        if len(_CANONICAL) > _MEMO_LIMIT:
            _CANONICAL.clear()
        _CANONICAL[id(value)] = (value, order, {tuple([self.to_placeholder[sid] for sid in order]): found})
        return found

    def _placeholder(self, sid):
        if not isinstance(sid, str):
            return sid
        if sid not in self.to_placeholder:
            self.to_placeholder[sid] = f"#{len(self.to_placeholder)}"
        return self.to_placeholder[sid]


class SummaryStore:
    """Summaries of one scan, by call-context key (several per key when stacks differ)."""

    def __init__(self) -> None:
        self.by_key: dict = {}
        # Summaries of walks cut by the depth limit, by (key, levels left under the limit).
        self.cut_by_key: dict = {}
        self.hits = 0
        self.walks = 0

    def find(self, context: CallContext, stack: frozenset, depth: int, max_depth: int, recorder,
             budget: int) -> Summary | None:
        if not REUSE:
            return None
        found = self._find(self.by_key, context.key, context, stack, depth, max_depth, recorder, budget)
        if found is None and recorder.values_only and max_depth is not None:
            # A walk cut by the depth limit depends on its path only through the depth (how
            # many levels were left) and, in its steps, the cuts already reported (each site
            # once per recorder): where only values are used, it is reused at the same depth
            # left. The stack, foreign-key and instance conditions are the same as above.
            found = self._find(self.cut_by_key, (context.key, max_depth - depth), context, stack, None, None,
                               recorder, budget)
        return found

    def _find(self, table: dict, key, context: CallContext, stack: frozenset, depth, max_depth, recorder,
              budget: int) -> Summary | None:
        for summary in list(table.get(key, ())):
            if not summary.on_stack <= stack or summary.off_stack & stack:
                continue
            if summary.height >= 0 and max_depth is not None and depth + summary.height >= max_depth:
                continue
            if recorder.calls + summary.calls - 1 > budget:
                continue
            if summary.fk and any(_actual_fk_key(k, context) in recorder.fk_cache for k in summary.fk):
                continue
            if any(k in recorder.instances for k in summary.misses):
                continue  # a walk would repeat an instance there instead of copying it
            try:
                resolve(summary)
            except Uncacheable:
                table[key].remove(summary)
                continue
            return summary
        return None

    def add(self, context: CallContext, summary: Summary) -> None:
        if summary.cut:
            self.cut_by_key.setdefault((context.key, summary.cut_at), []).append(summary)
        else:
            self.by_key.setdefault(context.key, []).append(summary)


def release(ctx) -> None:
    """Forget the scan's summaries once every transaction is walked: the scan keeps its context
    (warm cache, rewrite verification) while the IR and the core's analysis are built, and the
    summaries were its largest part (saleor unbounded: 180 MB of a 1.17 GB peak)."""
    ctx.summaries = None
    ctx.signatures.clear()  # (parameters.py: made again if a later pass walks)
    forget_constants()
    _STEPLESS.clear()
    _FROZEN.clear()
    _SPLIT.clear()
    _IDS.clear()
    _CANONICAL.clear()


def _actual_fk_key(key, context: CallContext, rename=None):
    rename = rename or (lambda sid: context.from_placeholder.get(sid, sid))
    origin, sources, attr = key
    relabel = Relabel(rename)
    renamed = sources if isinstance(sources, str) else tuple(sorted(relabel.source(s) for s in sources))
    return (rename(origin) if _is_placeholder(origin) else origin, renamed, attr)


def make_summary(frame: Frame, context: CallContext, recorder, steps: list, value: Val, self_after,
                 raise_guards: frozenset, caller_via: tuple, call_site, max_depth: int | None = None,
                 depth: int = 0, budget: int | None = None) -> Summary:
    """The canonical form of a finished walk; raises Uncacheable when it cannot be reused. A
    walk cut below is kept only where its steps are thrown away (`recorder.values_only`), the
    cut was the depth limit's (`max_depth`, the walk called at `depth`) and not the budget's."""
    if frame.fk_external or frame.repeats_outside:
        raise Uncacheable
    cut_at = None
    if frame.cut:
        if not (recorder.values_only and max_depth is not None and budget is not None
                and recorder.calls <= budget):
            raise Uncacheable
        cut_at = max_depth - depth
    base = frame.counter

    def canonical(sid):
        if not isinstance(sid, str):
            return sid
        if sid in context.to_placeholder:
            return context.to_placeholder[sid]
        if _is_step_id(sid) and int(sid[1:]) > base:
            return f"@{int(sid[1:]) - base}"
        if _is_step_id(sid):
            raise Uncacheable  # a step of the caller the arguments do not carry
        return sid

    relabel = Relabel(canonical)
    fk = {}
    for key, loaded in frame.fk_inserted.items():
        origin, sources, attr = key
        # A prefetch's key names its kind ("prefetch") where a read's names its sources.
        sources = sources if isinstance(sources, str) else tuple(relabel.source(s) for s in sources)
        fk[(canonical(origin), sources, attr)] = relabel.value(loaded)
    on_stack = frozenset(q for q in frame.queried if q in frame.base_stack)
    # Steps reported at this call's site (`super().save()` in an override reports the caller's
    # `obj.save()` line): their place is filled in from the site of each call.
    site = (recorder.site_steps, list(call_site[2])) if call_site is not None else None
    return Summary(
        steps=[], value=None, self_after=None, raise_guards=frozenset(),
        diagnostics=list(recorder.diagnostics[frame.diagnostics:]), fk=fk,
        on_stack=on_stack, off_stack=frozenset(frame.queried) - on_stack,
        height=frame.deepest - frame.base_depth if frame.deepest >= 0 else -1,
        calls=recorder.calls - frame.calls + 1, locals=recorder.counter - base,
        reached=frozenset(frame.reached), misses=frozenset(frame.missed),
        pending=(relabel, steps, value, self_after, raise_guards, tuple(caller_via), site, list(frame.registered), base),
        cut_at=cut_at)


def resolve(summary: Summary) -> None:
    """Give a summary its canonical steps, values and instances, the first time it is reused
    (most walks are never reused: their canonical form is made only when needed); raises
    Uncacheable when they mention a step the call context does not account for. The walk's
    own steps and values are kept until then (they are the transaction's IR, not copied)."""
    if summary.pending is None:
        return
    relabel, steps, value, self_after, raise_guards, caller_via, site, registered, base = summary.pending
    summary.pending = None
    prefix = len(caller_via)
    summary.steps = [_canonical_step(step, relabel, prefix, caller_via, site) for step in steps]
    summary.value = relabel.value(value)
    summary.self_after = relabel.value(self_after)
    summary.raise_guards = relabel.sources(raise_guards)
    summary.instances = [(key, entry.relabelled(relabel, -base)) for key, entry in registered]


def _shallow(step: dict, relabel: Relabel) -> dict:
    """A step relabelled, without its nested steps (done by the callers, with their via)."""
    return {key: value if key in ("arms", "body") else relabel.entry(key, value) for key, value in step.items()}


def _canonical_step(step: dict, relabel: Relabel, prefix: int, caller_via: tuple, site) -> dict:
    out = _shallow(step, relabel)
    if site is not None and step.get("id") in site[0] and step.get("via") == site[1]:
        out["__site__"] = True  # file, line, via and api are the call site's, filled in when instantiated
    else:
        via = step.get("via", [])
        if tuple(via[:prefix]) != caller_via:
            raise Uncacheable
        out["via"] = via[prefix:]
    for nested in ("arms",):
        if nested in step:
            out[nested] = [[_canonical_step(s, relabel, prefix, caller_via, site) for s in arm]
                           for arm in step[nested]]
    if "body" in step:
        out["body"] = [_canonical_step(s, relabel, prefix, caller_via, site) for s in step["body"]]
    return out


@dataclass
class Instance:
    steps: list
    value: Val
    self_after: Val | None
    raise_guards: frozenset
    fk_inserted: dict     # the foreign-key reads it entered in the transaction's cache


def instantiate(summary: Summary, context: CallContext, recorder, caller_via: tuple, caller_depth: int,
                call_site) -> Instance:
    """The summary's steps and values at this call: placeholders become the caller's step ids,
    the summary's own steps get fresh ids in the order a walk would have given them."""
    base = recorder.counter
    recorder.counter += summary.locals

    def actual(sid):
        if isinstance(sid, str) and sid[:1] == "@":
            return f"s{base + int(sid[1:])}"
        if isinstance(sid, str) and sid[:1] == "#":
            return context.from_placeholder[sid]
        return sid

    relabel = Relabel(actual)
    via = list(caller_via)
    steps = [_actual_step(step, relabel, via, call_site, recorder) for step in summary.steps]
    recorder.diagnostics.extend(summary.diagnostics)
    fk_inserted = {}
    for key, loaded in summary.fk.items():
        fk_inserted[_actual_fk_key(key, context, actual)] = relabel.value(loaded)
    for key, loaded in fk_inserted.items():
        recorder.fk_cache[key] = loaded
    recorder.calls += summary.calls - 1
    recorder.reached |= summary.reached
    if summary.cut:
        for open_frame in recorder.frames:  # as the walk's cut did (walker._cut)
            open_frame.cut = True
    if recorder.frames:
        frame = recorder.frames[-1]
        frame.queried |= summary.on_stack | summary.off_stack
        frame.reached |= summary.reached
        if summary.height >= 0:
            frame.deepest = max(frame.deepest, caller_depth + summary.height)
        frame.missed |= summary.misses
    for key, entry in summary.instances:
        recorder.instances.register(key, entry.relabelled(relabel, base))
    return Instance(steps, relabel.value(summary.value), relabel.value(summary.self_after),
                    relabel.sources(summary.raise_guards), fk_inserted)


def _actual_step(step: dict, relabel: Relabel, via: list, call_site, recorder) -> dict:
    out = _shallow(step, relabel)
    if out.pop("__site__", False):
        out["file"], out["line"], site_via, out["api"] = call_site
        out["via"] = list(site_via)
        recorder.site_steps.add(out["id"])
    else:
        out["via"] = via + out["via"]
    if "arms" in out:
        out["arms"] = [[_actual_step(s, relabel, via, call_site, recorder) for s in arm] for arm in step["arms"]]
    if "body" in out:
        out["body"] = [_actual_step(s, relabel, via, call_site, recorder) for s in step["body"]]
    return out



# ---------------------------------------------------------------------------- repeated instances
@dataclass
class Entry:
    """One instance of a call in a transaction, as a later identical call repeats it."""

    base: int                 # the step counter before the instance's first step
    bindings: tuple           # the caller's steps bound to the placeholders #0, #1, ...
    same_as: tuple            # ids of the instance's steps (nested ones included), in order
    value: Val
    self_after: Val | None
    raise_guards: frozenset
    on_stack: frozenset
    off_stack: frozenset
    height: int
    reached: frozenset
    # Foreign-key reads of rows the instance did not read itself (docs/IR.md "repeat"): a later
    # call finds them in the transaction's cache, as the instance left them, or it is walked.
    # (key, value) pairs, and the ids of the instance's reads among them (a repeat leaves them out).
    fk_cached: tuple = ()
    fk_reads: frozenset = frozenset()
    # The instance's own rows its values carry out, and how many foreign-key reads of them were
    # cached when it ended: once the caller has read more of them, a later call's new rows would
    # not find those reads cached where the first instance's rows do, so the call is walked.
    rows_out: frozenset = frozenset()
    row_reads: int = 0

    def relabelled(self, relabel: Relabel, shift: int) -> "Entry":
        return Entry(self.base + shift, tuple(relabel.ids(b) for b in self.bindings),
                     tuple(relabel.ids(i) for i in self.same_as), relabel.value(self.value),
                     relabel.value(self.self_after), relabel.sources(self.raise_guards), self.on_stack,
                     self.off_stack, self.height, self.reached,
                     tuple((relabel_fk_key(relabel, key), relabel.data(value)) for key, value in self.fk_cached),
                     frozenset(relabel.ids(i) for i in self.fk_reads), frozenset(relabel.ids(i) for i in self.rows_out),
                     self.row_reads)

    def repeated(self, fk_cache: dict, bind: dict) -> tuple | None:
        """The step ids a call binding `bind` repeats, or None when its walk would not give this
        instance's steps again: a foreign-key read the instance found or did in the cache is
        not there (or holds another row) for this call, so the call would read it again."""
        if self.rows_out and fk_cache.keys_naming(self.rows_out) > self.row_reads:
            return None
        if not self.fk_cached:
            return self.same_as
        relabel = Relabel(lambda sid: bind.get(sid, sid))
        for key, value in self.fk_cached:
            actual = relabel_fk_key(relabel, key) if bind else key
            if dict.get(fk_cache, actual) != (relabel.data(value) if bind else value):
                return None
        return tuple(sid for sid in self.same_as if sid not in self.fk_reads)

    def required_keys(self, bind: dict) -> list:
        relabel = Relabel(lambda sid: bind.get(sid, sid))
        return [relabel_fk_key(relabel, key) for key, _value in self.fk_cached]


def relabel_fk_key(relabel: Relabel, key: tuple) -> tuple:
    """A foreign-key cache key `(origin, key sources, attribute)` with its step ids renamed; the
    sources stay sorted, as the walk keys them (orm_instances.load_foreign_key)."""
    origin, sources, attr = key
    if not isinstance(sources, tuple):  # a prefetch entry: (read id, "prefetch", accessor)
        return (relabel.ids(origin), sources, attr)
    return (relabel.ids(origin) if _is_step_id(origin) or _is_placeholder(origin) else origin,
            tuple(sorted(relabel.source(s) for s in sources)), attr)


def fk_dependencies(inserted: dict, used: dict, base: int, end: int, value, self_after, fk_cache) -> tuple | None:
    """The foreign-key fields of the Entry of an instance whose steps have ids base+1..end, from
    the foreign-key reads its walk added (`inserted`) and found already done (`used`); None when
    it cannot be repeated. A read keyed by one of the instance's own rows is done again by a
    later call (on its new rows, leaving the cache as the first instance left it, renamed): the
    repeat runs it again. A read keyed by a row from outside is found in the cache by a later
    call: the repeat requires it there (`fk_cached`) and leaves the read out (`fk_reads`)."""
    def own(sid) -> bool:
        return _is_step_id(sid) and base < int(sid[1:]) <= end

    cached, reads = list(used.items()), set()
    for key, loaded in inserted.items():
        if any(own(sid) for sid in _key_ids(key)):
            continue
        if not isinstance(loaded, Val) or not own(loaded.origin):
            return None
        cached.append((key, loaded))
        reads.add(loaded.origin)
    rows_out = rows_carried((value, self_after), base, end)
    return tuple(cached), frozenset(reads), rows_out, fk_cache.keys_naming(rows_out) if rows_out else 0


def rows_carried(values, base: int, end: int) -> frozenset:
    """The steps base+1..end (an instance's own rows) that `values` carry."""
    if end == base:
        # The instance allocated no step (most helper walks): nothing to search its values for.
        return frozenset()
    return _rows_searched(values, base, end)


def _rows_searched(values, base: int, end: int) -> frozenset:
    carried: set = set()
    collect = Relabel(lambda sid: carried.add(sid) or sid)
    for val in values:
        if val is not None and not stepless(val):
            collect.value(val)
    return frozenset(sid for sid in carried if _is_step_id(sid) and base < int(sid[1:]) <= end)


def _key_ids(key: tuple) -> list:
    origin, sources, _attr = key
    ids = [origin] if _is_step_id(origin) else []
    if isinstance(sources, tuple):
        ids += [s[1] for s in sources if type(s) is tuple and len(s) == 2 and s[0] in STEP_KINDS]
    return ids


def instance_key(context: CallContext, call_site):
    """The table key of a call: its context. A call reported at its caller's site
    (`super().save()`) is always copied."""
    if call_site is not None or not REPEAT:
        return None
    return context.key


def bindings(context: CallContext) -> tuple:
    """The caller's steps bound to the context's placeholders #0, #1, ..."""
    return tuple(context.from_placeholder[f"#{i}"] for i in range(len(context.from_placeholder)))


def rebinding(entry: Entry, context: CallContext) -> dict:
    """Which step of this call stands for which bound step of the first instance."""
    return {old: new for old, new in zip(entry.bindings, bindings(context)) if old != new}


def step_ids_in(steps: list) -> tuple:
    """Ids of the steps in a list, nested ones (in branches and loops) included, in order."""
    out: list = []
    _add_step_ids(steps, out)
    return tuple(out)


def _add_step_ids(steps: list, out: list) -> None:
    for step in steps:
        if "id" in step:
            out.append(step["id"])
        arms = step.get("arms")
        if arms:
            for arm in arms:
                _add_step_ids(arm, out)
        body = step.get("body")
        if body:
            _add_step_ids(body, out)


class InstanceTable(dict):
    """The instances of one transaction that a later identical call may repeat, by key."""

    def __init__(self, frames: list, fk_cache: FkCache) -> None:
        super().__init__()
        self.frames = frames  # the recorder's (FkCache)
        self.fk_cache = fk_cache

    def lookup(self, key: tuple, context: CallContext, stack, depth: int,
               max_depth: int | None) -> tuple[Entry, dict, tuple] | None:
        """The instance a call repeats: (entry, its rebinding, the step ids repeated)."""
        frames = self.frames
        for entry in self.get(key, ()):
            # Membership tests go through the walker's StackView: the open walks depend on them.
            if any(q not in stack for q in sorted(entry.on_stack)) or any(q in stack for q in sorted(entry.off_stack)):
                continue
            if entry.height >= 0 and max_depth is not None and depth + entry.height >= max_depth:
                continue
            bind = rebinding(entry, context)
            same_as = entry.repeated(self.fk_cache, bind)
            if same_as is None:
                continue
            for frame in frames:
                if entry.base < frame.counter:
                    frame.repeats_outside = True
            for fk_key in entry.required_keys(bind):
                self.fk_cache[fk_key]  # the open walks depend on the cached read
            return entry, bind, same_as
        if frames:
            frames[-1].missed.add(key)
        return None

    def register(self, key: tuple, entry: Entry) -> None:
        self.setdefault(key, []).append(entry)
        if self.frames:
            self.frames[-1].registered.append((key, entry))
