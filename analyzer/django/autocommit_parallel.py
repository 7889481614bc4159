"""The autocommit phase's walks shared with a second process, on a machine with a second core.

The autocommit phase (autocommit.py) walks every function with ORM code reached outside
transactions, each on its own (call_sites.py); a walk's result depends on the function and what
its callees return, never on the order functions are reached in, which is what lets the warm
cache keep walks and hand them back. A helper process uses the same property: forked once the
index, the models and the boundaries are known (before the transactions are walked), it walks
every function with ORM code, in the reverse of the order the autocommit phase reaches them in
(descending names), and passes each walk on as the cache would keep it. The scan itself walks
the transactions, then runs the autocommit phase as always, taking a walk the helper already
made (checked like a cached one: the callees it asked must answer the same) instead of making
it. The records are built, ordered and merged by the scan itself, so its output is the one a
scan without the helper gives.

Before its first walk the helper sends what the phase reads off the code before walking (each
function's ORM prefilter and callees by name, each module's module-level queries: autocommit.py
DecidedFacts); the scan's phase takes it instead of reading it again. Module-level code, which the
scan's phase walks first, the helper walks after its functions, until the scan's phase starts.

The scan never waits for the helper: walks arrive in an anonymous in-memory file the scan
reads when it needs one, and whatever has not arrived is walked in the scan. The helper is
stopped (SIGKILL) when the phase ends, and reaped when scan() ends (forked.reap_stopped()): the
scan does not wait for its memory to be freed. A helper that fails to start, crashes or
falls behind costs nothing but its own time; its error is never part of the scan's output.

The explicit transactions are shared too, once the helper has made the autocommit walks (where
those take as long as the scan's transactions, nothing is left to share: a transaction walked in
the helper makes again the summaries the scan's transactions made, and costs more there): the
scan walks them in order from the first, the helper from the last, each marking where it is (the
scan's position in a shared page, the helper's results in the file), and they meet in the middle. A
transaction's walk depends only on its boundary and the definitions it reaches (the warm cache
reuses them one by one on the same grounds), so the helper's result is the one the scan would
have made; the scan takes it with its cache entry and the parse errors of the definitions it
reached, as it takes a kept transaction from the warm cache. A transaction whose result has not
arrived when the scan gets to it is walked by the scan (at the meeting point, both may walk the
same one: the scan's own result is kept). The scan never waits for the helper.

In a cold scan of MIN_FILES files or more, the helper is forked before the index, and the two
processes index the files together: the scan from the first file (marking where it is in the
shared page), the helper from the last until that mark, each passing on what it indexed (a
module's facts and their warm-cache entry, as the cache would keep them); each then adds every
module in file order, so both hold the index a scan alone builds. Both find the models and boundaries
themselves (the helper's start costs that, and the index's other half is not waited for), and the
helper goes on to its walks where the scan would have forked it. The scan never waits here either:
a file whose facts have not arrived when the scan gets to it is indexed by the scan. Too few
functions for a helper, once the index is known: the helper is stopped.

The index is made ahead where it can be: a third process (index_ahead()), forked before the scan
imports libcst and the modules reading it (about 0.1 s of CPU the index does not depend on),
indexes the files from the last while the scan imports them, passing each module on as above, and
ends when it gets to the scan's file. The helper forked before the index then indexes nothing
itself (forked after those imports, it inherits them): it takes, in file order, the modules the
process ahead indexed and those the scan indexed, which is every file the scan did not take from
that process. A process ahead that fails, hangs or sends damaged data leaves its files to the
scan, as the helper's share does.

The boundaries are shared the same way: the definitions that can hold one (boundaries.candidates)
are parsed and searched by the scan from the first, by the helper from the last, each passing on
what it found as the warm cache keeps it (DjangoReuse.boundaries: the boundaries without their
parsed trees, and the definition's diagnostics); what the other process found is taken as a kept
entry, parsed only when a walk needs it. Each process then parses the definitions of the
transactions it walks (the scan from the first, the helper from the last), not every candidate.

It runs where analyzer/forked.py allows helpers, in cold scans (the warm cache holds no walks)
of projects of MIN_FUNCTIONS functions or more (TXSCAN_HELPERS=1: any scan; =wait: the scan
waits for it, up to WAIT_SECONDS, before the index and the transactions (which the helper then
indexes and walks all of) and before the autocommit phase).
"""

from __future__ import annotations

import dataclasses
import mmap
import os
import pickle
import struct
import tempfile
import time
from collections.abc import Callable, Iterator

from .. import forked, timing

# Below this many functions the walks take less than starting a process over the heap does.
MIN_FUNCTIONS = 200
# From this many files on the helper is forked before the index, which the two processes share
# (below it, the index takes less than the helper's own models and boundaries do).
MIN_FILES = 50
WAIT_SECONDS = 600
# How often the autocommit phase looks for the helper's facts while they have not arrived (it asks
# for them function by function; a look is a system call or two).
FACTS_LOOK_SECONDS = 0.0005
_LENGTH = struct.Struct("<I")
_POSITION = struct.Struct("<q")
# The shared page: a slot each for the scan's position among the transactions, its next file to
# index, its next boundary candidate, and whether its autocommit phase has started
# (_mark_scan(), _scan_reached()).
_SCAN_TRANSACTION, _SCAN_FILE, _SCAN_CANDIDATE, _SCAN_AUTOCOMMIT = (n * _POSITION.size for n in range(4))
_PAGE = 4 * _POSITION.size
# Kinds of the frames the helper writes: an autocommit walk (key, cache entry), an explicit
# transaction's walk (its position, what the scan takes), the end of the transactions, and a
# module it indexed (its file's number, (warm-cache entry, facts)), and the end of its share of the
# index, a boundary candidate it searched (its number, (cache key, cache entry) or None) and the end
# of its share of them; the scan writes modules and candidates too.
_SITES, _TRANSACTION, _TRANSACTIONS_DONE = "sites", "transaction", "transactions-done"
_MODULE, _INDEX_DONE = "module", "index-done"
_CANDIDATE, _CANDIDATES_DONE = "candidate", "candidates-done"
# What the autocommit phase reads off every function and module before walking (whether it holds
# ORM code, whom it calls by name, whether module-level code runs queries: autocommit.py
# DecidedFacts), read by the helper before its walks: the scan's phase takes it instead of reading
# it again.
_DECIDED_FACTS = "decided-facts"


def wanted(function_count: int) -> bool:
    return forked.allowed() and (function_count >= MIN_FUNCTIONS or forked.setting() in ("1", "wait"))


def start(ctx, boundaries: list, reuse, transactions: list | None = None,
          walk_transaction: Callable | None = None, early: Helper | None = None) -> Helper | None:
    """A helper making the autocommit walks of this scan, then walking the explicit
    `transactions` the scan has not got to (boundaries in the scan's order, each walked by
    `walk_transaction(boundary)`, the scan's cache use recording it); None: the scan walks alone. `reuse` must be the scan's DjangoReuse: walks
    are passed on as its cache entries. `early`: the helper forked before the index
    (before_index()); in it, this call makes its walks and ends the process."""
    if early is not None:
        if early.in_helper:  # pragma: no cover - the helper process
            if wanted(len(ctx.index.functions)):
                _helper_main(ctx, boundaries, reuse, early.channel, early.position, transactions or [],
                             walk_transaction)
            os._exit(0)
        early.indexing = False
        early._end_ahead()
        early.modules.clear()
        early.candidates.clear()
        if wanted(len(ctx.index.functions)):
            return early
        early.stop()
        return None
    if not _shareable(reuse, len(ctx.index.functions) >= MIN_FUNCTIONS):
        return None
    shared = _fork_sharing(1)
    if shared is None:
        return None
    pid, (channel,), position = shared
    if pid == 0:  # pragma: no cover - the helper process (its walks are checked by the scan's tests)
        _helper_main(ctx, boundaries, reuse, channel, position, transactions or [], walk_transaction)
    return Helper(pid, channel, position)


def _shareable(reuse, large: bool) -> bool:
    """Whether this scan may have a helper: a cold scan (a warm one has its walks in the cache, the
    phase costs little) of a large enough project (`large`), as forked.allowed() and TXSCAN_HELPERS say."""
    from ..cache.django import DjangoReuse

    if not isinstance(reuse, DjangoReuse) or not forked.allowed() or reuse.old.get("autocommit"):
        return False  # (TXSCAN_HELPERS=1 overrides the load and the size, not the warm cache)
    return large or forked.setting() in ("1", "wait")


@dataclasses.dataclass
class Ahead:
    """The scan's side of the process indexing ahead (index_ahead()): its modules are read from
    `channel` by the scan and by the helper forked before the index (Helper.ahead)."""
    pid: int
    channel: int
    position: mmap.mmap

    def stop(self) -> None:
        """End it (done or not); reaped by forked.reap_stopped() (close() also closes its file and page)."""
        if self.pid > 0:
            forked.stop(self.pid, wait=False)
            self.pid = 0

    def close(self) -> None:
        self.stop()
        if self.channel >= 0:
            os.close(self.channel)
            self.channel = -1
        if not self.position.closed:
            self.position.close()


def index_ahead(reuse, sources: list, package_prefix: str) -> Ahead | None:
    """The process indexing ahead (see the module's description), forked where before_index() will
    fork a helper; the scan hands it to before_index(). None: the index is shared as before."""
    if not _shareable(reuse, len(sources) >= MIN_FILES):
        return None
    shared = _fork_sharing(1)
    if shared is None:
        return None
    pid, (channel,), position = shared
    if pid == 0:  # pragma: no cover - the process ahead (its index is checked by the scan's tests)
        status = 1
        try:
            _quiet()
            with timing.phase("index ahead"):
                Helper(0, channel, position, reuse=reuse, sources=sources).index_share(package_prefix)
            status = 0
        finally:
            os._exit(status)
    return Ahead(pid, channel, position)


def before_index(reuse, sources: list, package_prefix: str, ahead: Ahead | None = None) -> Helper | None:
    """The helper forked before the index (see the module's description), for a cold scan of
    MIN_FILES `sources` or more (SourceFile or FileProblem, in the scan's order). In the scan:
    a Helper whose index_add() takes the modules the helper (or the process `ahead`) indexed; in
    the helper (in_helper): one that has indexed its share (none with a process ahead), and whose
    index_add() hands over the scan's (and those of the process ahead). None: no helper yet
    (start() may still fork one once the index is known); the process ahead is stopped."""
    shared = _fork_sharing(2) if _shareable(reuse, len(sources) >= MIN_FILES) else None
    if shared is None:  # (the helper's frames, and the scan's modules for the helper: `down`)
        if ahead is not None:
            ahead.close()
        return None
    pid, (channel, down), position = shared
    helper = Helper(pid, channel, position, down=down, reuse=reuse, sources=sources, ahead=ahead)
    helper.indexing = True
    if pid == 0:  # pragma: no cover - the helper process (its index is checked by the scan's tests)
        helper.in_helper = True
        helper.pid = 0  # the scan's process is never stopped from here
        if ahead is not None:
            ahead.pid = 0  # (nor the process ahead)
        helper.scan_pid = os.getppid()
        _quiet()
        if ahead is None:
            try:
                helper.index_share(package_prefix)
            except BaseException:  # noqa: BLE001 - the scan indexes what did not arrive
                os._exit(1)
    return helper


def _fork_sharing(channels: int) -> tuple[int, list[int], mmap.mmap] | None:
    """forked.fork(), with `channels` files (_channel()) and the shared page (MAP_SHARED) that the
    scan and its helper both hold: (pid, the files, the page); None when any could not be made."""
    files: list[int] = []
    try:
        for _ in range(channels):
            files.append(_channel())
        position = mmap.mmap(-1, _PAGE)
    except (OSError, ValueError):
        for fd in files:
            os.close(fd)
        return None
    pid = forked.fork()
    if pid is None:
        for fd in files:
            os.close(fd)
        position.close()
        return None
    return pid, files, position


def _mark_scan(position: mmap.mmap | None, slot: int, number: int) -> None:
    """The scan has got to item `number` of the kind at `slot`: the helper stops before it."""
    if position is not None and not position.closed:
        _POSITION.pack_into(position, slot, number + 1)


def _scan_reached(position: mmap.mmap, slot: int, number: int) -> bool:
    """Whether the scan has got to item `number` of the kind at `slot` (it does the rest itself)."""
    return _POSITION.unpack_from(position, slot)[0] > number


def _quiet() -> None:  # pragma: no cover - runs in the helper
    """Nothing the helper does reaches the scan's output."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


def _channel() -> int:
    """A file only this scan and its helper hold: in memory where the system allows it."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("txscan-autocommit", os.MFD_CLOEXEC)
    with tempfile.TemporaryFile() as handle:
        return os.dup(handle.fileno())


def _helper_main(ctx, boundaries: list, reuse, channel: int, position: mmap.mmap, transactions: list,
                 walk_transaction: Callable | None) -> None:  # pragma: no cover - runs in the helper
    status = 0
    try:
        _quiet()
        _walk_all(ctx, boundaries, reuse, channel, position)
        if transactions and walk_transaction is not None:
            with timing.phase("helper transactions"):
                _walk_transactions(ctx, reuse, channel, position, transactions, walk_transaction)
        _send(channel, (_TRANSACTIONS_DONE, None, None))
    except BaseException:  # noqa: BLE001 - the scan walks what did not arrive
        status = 1
    finally:
        os._exit(status)


def _send(channel: int, frame_content: tuple) -> None:  # pragma: no cover - runs in the helper
    frame = pickle.dumps(frame_content, pickle.HIGHEST_PROTOCOL)
    os.write(channel, _LENGTH.pack(len(frame)) + frame)


def _walk_transactions(ctx, reuse, channel: int, position: mmap.mmap, transactions: list,
                       walk_transaction: Callable) -> None:  # pragma: no cover - runs in the helper
    """The explicit transactions from the last, until the one the scan has got to: each passed on
    with what the scan records when it walks one itself (the cache entry, the ids of those walked)."""
    written = reuse.written["transactions"]
    for number in range(len(transactions) - 1, -1, -1):
        if _scan_reached(position, _SCAN_TRANSACTION, number):
            return  # the scan has got here: it walks the rest itself
        entries, walked = len(written), len(reuse.walked)
        result = walk_transaction(transactions[number])
        _send(channel, (_TRANSACTION, number, (list(written.items())[entries:], reuse.walked[walked:], result)))


def _walk_all(ctx, boundaries: list, reuse, channel: int,
              position: mmap.mmap) -> None:  # pragma: no cover - runs in the helper
    from .autocommit import _Autocommit
    from .call_sites import CallSites

    original = reuse.sites_walk

    def passing_on(key: str, walk):
        result, entry = original(key, walk)
        if not entry.get("unkept"):
            _send(channel, (_SITES, key, entry))
        return result, entry

    reuse.sites_walk = passing_on
    phase = _Autocommit(ctx, boundaries, [], reuse)
    phase.walks = CallSites(ctx, phase.walkable, phase.site_records, reuse)
    with timing.phase("helper facts"):
        walkable = [qualname for qualname in sorted(ctx.index.functions, reverse=True) if phase.walkable(qualname)]
        for fn in ctx.index.functions.values():
            phase.callees(fn)
        modules = phase.module_level_orm()
        _send(channel, (_DECIDED_FACTS, None, phase.decided_facts()))
    timing.mark("helper walks")  # (to the phase's end, where the helper is killed: no end is traced)
    for qualname in walkable:
        phase.walks.function(ctx.index.functions[qualname])
    # Module-level code last, and only until the scan's phase starts: it walks that code first
    # (one module of netbox takes 0.45 s; walked by both at once, it cost the scan's phase as much).
    for name in modules:
        if _scan_reached(position, _SCAN_AUTOCOMMIT, 0):
            break
        phase.walks.module_code(name)


def _frames(channel: int, offset: int) -> Iterator[tuple[int, tuple]]:
    """The whole frames written to `channel` past `offset`: (where each ends, its content)."""
    size = os.fstat(channel).st_size
    while offset + _LENGTH.size <= size:
        (length,) = _LENGTH.unpack(os.pread(channel, _LENGTH.size, offset))
        end = offset + _LENGTH.size + length
        if end > size:
            return  # still being written
        yield end, pickle.loads(os.pread(channel, length, offset + _LENGTH.size))
        offset = end


def _module_facts(reuse, info) -> tuple | None:
    """What the other process needs of a module the index added: its warm-cache entry and its
    facts without the source (which it has read too); None: indexing it ran out of recursion."""
    if info is None:
        return None
    return reuse.written["files"][info.rel], dataclasses.replace(info, source=None)


class Helper:
    """The scan's side: walks read as they arrive, the helper stopped when the phase ends. A
    helper forked before the index holds one too (in_helper), to exchange the index's modules."""

    def __init__(self, pid: int, channel: int, position: mmap.mmap | None = None, down: int = -1, reuse=None,
                 sources: list | None = None, ahead: Ahead | None = None) -> None:
        self.pid = pid
        self.channel = channel
        self.position = position
        self.offset = 0
        self.pending: dict[str, list[dict]] = {}
        self.transactions: dict[int, tuple] = {}
        self.transactions_done = False
        self.decided = None  # autocommit.DecidedFacts, read by the helper (_DECIDED_FACTS)
        self._next_facts_look = 0.0  # (arrived_facts())
        self.received = 0
        self.taken_transactions = 0
        # Sharing the index (before_index()): the scan's modules go `down` to the helper.
        self.down = down
        self.reuse = reuse
        self.sources = sources or []
        self.indexing = False
        self.in_helper = False
        self.modules: dict[int, tuple] = {}   # file number -> (warm-cache entry, facts), arrived
        self.index_done = False
        self.taken_modules = 0
        # Sharing the boundaries' search (boundaries()): candidate number -> (cache key, entry) or None
        self.candidates: dict[int, tuple | None] = {}
        self.candidates_done = False
        self.taken_candidates = 0
        self.scan_pid = 0       # in the helper: the scan's process
        self._own_old = False   # reuse.old is this helper's copy (_kept_boundaries())
        self.down_offset = 0    # in the helper: how much of `down` it has read
        self.ahead = ahead      # the process indexing ahead (index_ahead()), while its modules are read
        self.ahead_offset = 0   # how much of its channel has been read
        self.arrived_ahead = 0  # modules the process ahead passed on (taken or not)

    # -- the index, shared ----------------------------------------------------------------
    def index_add(self, number: int, index, source):
        """The module of file `number` added to `index` as reuse.index_add() adds it: from what the
        other process sent when it has, else indexed here (and sent, from the scan). Raises what
        indexing it raised (RecursionError)."""
        if self.in_helper:  # pragma: no cover - the helper process
            facts = self.modules.pop(number, None)
            if facts is None:
                facts = self._wait_for_module(number)
            return self._add(index, source, facts)
        if not self.index_done and forked.setting() == "wait":
            self._wait_for_index(WAIT_SECONDS)
        self._read()
        facts = self.modules.pop(number, None)
        if facts is not None:
            self.taken_modules += 1
            return self._add(index, source, facts)
        _mark_scan(self.position, _SCAN_FILE, number)
        if self.ahead is not None:
            _mark_scan(self.ahead.position, _SCAN_FILE, number)
        try:
            info = self.reuse.index_add(index, source)
        except RecursionError:
            self._send_down(number, None)
            raise
        self._send_down(number, info)
        return info

    def _add(self, index, source, facts: tuple | None):
        if facts is None:
            raise RecursionError("nesting too deep to parse")  # as indexing it here would
        entry, info = facts
        info.source = source
        self.reuse.written["files"][source.rel] = entry
        return index.add_info(info)

    def _send_down(self, number: int, info) -> None:
        if self.indexing:
            self._down((_MODULE, number, _module_facts(self.reuse, info)))

    def _down(self, frame_content: tuple) -> None:
        """A frame for the helper (the scan's modules and candidates), while it can be sent."""
        if self.down < 0:
            return
        try:
            _send(self.down, frame_content)
        except OSError:
            os.close(self.down)
            self.down = -1

    def index_share(self, package_prefix: str) -> None:  # pragma: no cover - runs in the helper
        """The helper's share of the index: files from the last, until the one the scan has got to,
        each passed on to the scan."""
        from .files import FileProblem
        from .index import RepoIndex

        own = RepoIndex(package_prefix)  # in file order later (index_add), with the scan's modules
        for number in range(len(self.sources) - 1, -1, -1):
            if _scan_reached(self.position, _SCAN_FILE, number):
                break  # the scan has got here: it indexes the rest
            source = self.sources[number]
            if isinstance(source, FileProblem):
                continue
            try:
                info = self.reuse.index_add(own, source)
            except RecursionError:
                info = None
            facts = _module_facts(self.reuse, info)
            self.modules[number] = facts
            _send(self.channel, (_MODULE, number, facts))
        _send(self.channel, (_INDEX_DONE, None, None))
        self.reuse.written["files"].clear()  # added again in file order

    def _wait_for_module(self, number: int) -> tuple | None:  # pragma: no cover - runs in the helper
        """The scan's module of file `number`: the helper has nothing else to do until it has it."""
        return self._wait_from_scan(self.modules, number)

    def _wait_from_scan(self, arrivals: dict, number: int):  # pragma: no cover - runs in the helper
        """What the scan sent for `number` into `arrivals` (modules or candidates, its own first)."""
        def arrived() -> tuple | None:  # (content,): content may be None
            if os.getppid() != self.scan_pid:
                raise TimeoutError("the scan's share did not arrive")  # the scan has ended
            self._read_ahead()
            for end, (kind, key, content) in _frames(self.down, self.down_offset):
                if kind == _MODULE:
                    self.modules.setdefault(key, content)
                elif kind == _CANDIDATE:
                    self.candidates.setdefault(key, content)
                self.down_offset = end
            return (arrivals.pop(number),) if number in arrivals else None

        found = forked.poll(arrived, WAIT_SECONDS, first_delay=0.0005, longest_delay=0.02)
        if found is None:
            raise TimeoutError("the scan's share did not arrive")
        return found[0]

    # -- the boundaries' search, shared ---------------------------------------------------
    def boundaries(self, number: int, ctx, info, qualname: str, first: int, last: int, cls: str | None,
                   find: Callable) -> list:
        """The boundaries of boundary candidate `number` as reuse.boundaries() gives them: taken as a
        kept cache entry when the other process sent what it found there, else found here (and sent,
        from the scan)."""
        if self.in_helper:  # pragma: no cover - the helper process
            if number in self.candidates:
                entry = self.candidates.pop(number)
            else:
                entry = self._wait_from_scan(self.candidates, number)
            return self._kept_boundaries(entry, ctx, info, qualname, first, last, cls, find)
        if not self.candidates_done and forked.setting() == "wait":
            self._wait_until(lambda: self.candidates_done, WAIT_SECONDS)
        self._read()
        entry = self.candidates.pop(number, None)
        if entry is not None:
            self.taken_candidates += 1
            return self._kept_boundaries(entry, ctx, info, qualname, first, last, cls, find)
        _mark_scan(self.position, _SCAN_CANDIDATE, number)
        found, entry = self._search(ctx, info, qualname, first, last, cls, find)
        self._down((_CANDIDATE, number, entry))
        return found

    def _search(self, ctx, info, qualname: str, first: int, last: int, cls: str | None, find: Callable) -> tuple:
        """(the boundaries reuse.boundaries() finds in one candidate, (the cache key, the entry) it
        wrote for it, None when it wrote none)."""
        written = self.reuse.written["boundaries"]
        before = len(written)
        found = self.reuse.boundaries(ctx, info, qualname, first, last, cls, find)
        if len(written) == before:
            return found, None
        key = next(reversed(written))
        return found, (key, written[key])

    def _kept_boundaries(self, entry: tuple | None, ctx, info, qualname: str, first: int, last: int,
                         cls: str | None, find: Callable) -> list:
        """reuse.boundaries() with `entry`, the other process's, as an earlier scan's: a key that
        differs here (or no entry) is searched here."""
        if entry is not None:
            old = self.reuse.old
            if not isinstance(old.get("boundaries"), dict) or not self._own_old:
                # a copy: the tables an earlier scan left are not changed
                self.reuse.old = old = {**old, "boundaries": dict(old.get("boundaries") or {})}
                self._own_old = True
            key, kept = entry
            old["boundaries"][key] = kept
        return self.reuse.boundaries(ctx, info, qualname, first, last, cls, find)

    def boundary_share(self, ctx, listed: list, find_boundaries: Callable) -> None:  # pragma: no cover - helper
        """The helper's share of the boundaries' search: candidates (boundaries.candidates()) from the
        last, until the one the scan has got to, each passed on to the scan."""
        written = self.reuse.written["boundaries"]
        own = []
        for number in range(len(listed) - 1, -1, -1):
            if _scan_reached(self.position, _SCAN_CANDIDATE, number):
                break  # the scan has got here: it searches the rest
            qualname, module, first, last, cls = listed[number]
            _found, entry = self._search(ctx, ctx.index.modules[module], qualname, first, last, cls,
                                         lambda parsed, qualname=qualname, cls=cls:
                                         find_boundaries(ctx, parsed, qualname, cls))
            self.candidates[number] = entry
            if entry is not None:
                own.append(entry[0])
            _send(self.channel, (_CANDIDATE, number, entry))
        _send(self.channel, (_CANDIDATES_DONE, None, None))
        for key in own:  # written again in the candidates' order
            written.pop(key, None)

    def shared(self, reuse) -> SharedReuse:
        """The scan's cache use with this helper's walks (waited for first when asked to)."""
        if forked.setting() == "wait":
            self._wait(WAIT_SECONDS)
        _mark_scan(self.position, _SCAN_AUTOCOMMIT, 0)  # (the helper walks no more module-level code)
        return SharedReuse(reuse, self)

    def decided_facts(self) -> ToldFacts:
        """What the autocommit phase reads off functions and modules, as the helper read it before
        its walks (autocommit.DecidedFacts), asked for fact by fact: they may arrive after the phase
        has begun, and each fact asked for before is read by the scan itself (ToldFacts)."""
        return ToldFacts(self)

    def arrived_facts(self):
        """The helper's autocommit.DecidedFacts, None while they have not arrived (the channel is
        looked at again at most every FACTS_LOOK_SECONDS: the phase asks for each function's)."""
        from .autocommit import DecidedFacts

        if not isinstance(self.decided, DecidedFacts):
            now = time.perf_counter()
            if now >= self._next_facts_look:
                self._next_facts_look = now + FACTS_LOOK_SECONDS
                self._read()
        return self.decided if isinstance(self.decided, DecidedFacts) else None

    def _wait(self, seconds: float) -> None:
        if self.pid > 0 and forked.wait(self.pid, seconds) is not None:
            self.pid = 0

    def _wait_for_transactions(self, seconds: float) -> None:
        """Until the helper has passed on every transaction (or ended, or `seconds` passed)."""
        self._wait_until(lambda: self.transactions_done, seconds)

    def _wait_for_index(self, seconds: float) -> None:
        """Until the helper (or the process ahead) has passed on its share of the index (or ended,
        or `seconds` passed)."""
        if self.ahead is None:
            self._wait_until(lambda: self.index_done, seconds)
            return

        def finished() -> bool | None:
            self._read_ahead()
            if self.index_done or self.ahead is None or self.ahead.pid <= 0:
                return True
            if forked.wait(self.ahead.pid, 0) is not None:  # ended (reaped here): read once more
                self.ahead.pid = 0
                self._read_ahead()
                return True
            return None

        forked.poll(finished, seconds)

    def _read_ahead(self) -> None:
        """The modules the process ahead has passed on since the last read (into `modules`, the
        first arrival of each kept); damaged data ends the reading, the rest comes from the scan."""
        if self.ahead is None or self.ahead.channel < 0:
            return
        try:
            for end, (kind, key, content) in _frames(self.ahead.channel, self.ahead_offset):
                if kind == _MODULE:
                    self.modules.setdefault(key, content)
                    self.arrived_ahead += 1
                elif kind == _INDEX_DONE:
                    self.index_done = True
                else:
                    raise ValueError(f"unexpected frame {kind!r}")
                self.ahead_offset = end
        except Exception:  # noqa: BLE001 - a damaged channel: the scan indexes what did not arrive
            self._end_ahead()

    def _end_ahead(self) -> None:
        """The process ahead is no longer read: stopped (from the scan), its file and page closed."""
        if self.ahead is not None:
            self.ahead.close()
            self.ahead = None

    def _wait_until(self, done: Callable[[], bool], seconds: float) -> None:
        def finished() -> bool | None:
            if done() or self.channel < 0 or self.pid <= 0:
                return True
            self._read()
            if not done() and os.waitpid(self.pid, os.WNOHANG)[0]:
                self.pid = 0  # ended (reaped here): what it wrote is read once more
                self._read()
            return True if done() or self.pid <= 0 else None

        forked.poll(finished, seconds)

    def transaction(self, number: int, ctx, reuse) -> tuple | None:
        """The result of the explicit transaction at `number` in the scan's order when the helper
        has walked it, with its cache entry and diagnostics recorded as if the scan had walked it;
        None: the scan walks it (and the helper, told the scan got here, stops before it)."""
        if number == 0 and forked.setting() == "wait":
            self._wait_for_transactions(WAIT_SECONDS)
        _mark_scan(self.position, _SCAN_TRANSACTION, number)
        self._read()
        arrived = self.transactions.pop(number, None)
        if arrived is None:
            return None
        entries, walked, result = arrived
        reuse.written["transactions"].update(entries)
        reuse.walked.extend(walked)
        for _key, entry in entries:
            # The parse errors of the definitions it reached, as a kept transaction gives them: the
            # helper may have parsed one first in an autocommit walk, its transaction walk then
            # adding no diagnostic of its own.
            ctx.diagnostics.extend(entry["parse_diagnostics"])
        self.taken_transactions += 1
        return result

    def take(self, key: str) -> list[dict]:
        """The walks of `key` arrived so far and not taken before."""
        self._read()
        return self.pending.pop(key, [])

    def _read(self) -> None:
        if self.indexing:
            self._read_ahead()
        if self.channel < 0:
            return
        try:
            for end, (kind, key, content) in _frames(self.channel, self.offset):
                if kind == _SITES:
                    self.pending.setdefault(key, []).append(content)
                elif kind == _TRANSACTION:
                    self.transactions[key] = content
                elif kind == _TRANSACTIONS_DONE:
                    self.transactions_done = True
                elif kind == _MODULE:
                    if self.indexing:
                        self.modules[key] = content
                elif kind == _INDEX_DONE:
                    self.index_done = True
                elif kind == _CANDIDATE:
                    self.candidates[key] = content
                elif kind == _CANDIDATES_DONE:
                    self.candidates_done = True
                elif kind == _DECIDED_FACTS:
                    self.decided = content
                else:
                    raise ValueError(f"unknown frame {kind!r}")
                self.offset = end
                self.received += 1
        except Exception:  # noqa: BLE001 - a damaged channel of any kind: the rest is walked in the scan
            self._close()

    def stop(self) -> None:
        """End the helper (done or not); its file goes with it. It is reaped by
        forked.reap_stopped(), which scan() calls as it ends: the scan goes on with the IR and the
        core while the system frees the helper's memory on the other core."""
        if self.pid > 0:
            forked.stop(self.pid, wait=False)
            self.pid = 0
        self._close()

    def _close(self) -> None:
        self._end_ahead()
        if self.channel >= 0:
            os.close(self.channel)
            self.channel = -1
        if self.down >= 0:
            os.close(self.down)
            self.down = -1
        self.modules.clear()
        self.candidates.clear()
        self.pending.clear()
        self.transactions.clear()
        if self.position is not None and not self.position.closed:
            self.position.close()


class ToldFacts:
    """The helper's DecidedFacts as the scan's autocommit phase asks for them (`functions` and
    `modules`, each read with get()): a fact not there yet is asked again of the channel, so the
    facts the helper sends after the phase has begun are taken from then on. The helper reads
    them while the scan walks the explicit transactions, and sent them only just after the
    phase began in about half of healthchecks' cold scans: taken all or nothing at the start, the
    scan then read every fact itself (about 25 ms, on its critical path) and the helper's were lost."""

    def __init__(self, helper: Helper) -> None:
        self.functions = _ToldTable(helper, "functions")
        self.modules = _ToldTable(helper, "modules")


class _ToldTable:
    def __init__(self, helper: Helper, table: str) -> None:
        self._helper = helper
        self._table = table

    def get(self, key: str, default=None):
        facts = self._helper.arrived_facts()
        return default if facts is None else getattr(facts, self._table).get(key, default)


class SharedReuse:
    """The scan's cache use (DjangoReuse) with the helper's walks added to what is kept."""

    def __init__(self, reuse, helper: Helper) -> None:
        self._reuse = reuse
        self._helper = helper

    def __getattr__(self, name: str):
        return getattr(self._reuse, name)

    def sites_kept(self, key: str) -> list[dict]:
        return self._reuse.sites_kept(key) + self._helper.take(key)

    def sites_arrived(self, key: str) -> list[dict]:
        return self._helper.take(key)
