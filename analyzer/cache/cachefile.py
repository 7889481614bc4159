"""The warm cache on disk: one file per front end in txscan's own cache folder, JSON lines.

JSON, not pickle: the folder sits inside a scanned checkout, and loading a pickle someone put
there would run their code. The first line names the format, its version, a fingerprint of the
analyzer's code and the tables; a file that is not such a cache, or is damaged, is ignored with
one line and rebuilt (errors are data), one written by other code is silently rebuilt.

Each entry of a table (a file's index facts, a transaction, a function's autocommit walks) is a
line of its own: `table<TAB>key as JSON<TAB>value as JSON<TAB>check` (JSON escapes tabs and
newlines inside strings, so neither splits a line). The check is a CRC-32 of the key's and the
value's text, compared when the entry is decoded: a changed character that leaves valid JSON
(which the code reading an entry would take as data of another shape) makes the entry absent,
like one that is not JSON. An entry is held as its line's text after the key (value and
check), so reading the file and writing back what was not decoded cost what they cost without
checks. An entry is decoded when a scan first asks for it (`txscan lint` never reads the
autocommit walks, a warm scan never the entries of changed files), and an entry written back
unchanged is written as the text it was read from, not encoded again. The last line counts the
entries, so a file cut short is seen as damaged.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path

from .. import __version__
from ..digests import blake2b

FORMAT = "txscan-cache"
VERSION = 3
_ENTRIES, _VALUE = "entries", "value"


def text_digest(text: str) -> str:
    """What names a text in the cache (contents, keys, values): 128 bits of blake2b; lone
    surrogates (from file names and sources decoded with surrogateescape) are kept, not refused."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """txscan's version and a digest of its own Python sources: a development build whose code
    changed without a new version number must not reuse results of the old code."""
    package = Path(__file__).resolve().parents[1]
    digest = blake2b(__version__.encode(), digest_size=16)
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _say(message: str) -> None:
    print(f"txscan: info: {message}", file=sys.stderr)


def entry_check(key, text: str) -> str:
    """The check of an entry: CRC-32 of its key's JSON text and its value's (ASCII, see _encode)."""
    start = zlib.crc32(_encode_key(key).encode("utf-8", "surrogatepass"))
    return f"{zlib.crc32(text.encode('utf-8', 'surrogatepass'), start):08x}"


def _checked_value(key, stored: str) -> str | None:
    """The value's text of an entry held as `value<TAB>check`, None when the check fails."""
    value, tab, check = stored.rpartition("\t")
    return value if tab and entry_check(key, value) == check else None


class Entries(Mapping):
    """One table of a cache file: its entries' texts (`value<TAB>check`), each decoded on first use.

    An entry whose text turns out not to be JSON, or not the text its check was made of, is
    absent (said once): it is computed again and written anew."""

    def __init__(self, damage: _Damage, texts: dict[str, str]) -> None:
        self._damage = damage
        self._texts = texts
        self._decoded: dict[str, object] = {}
        self.read_texts: dict[int, tuple[object, str]] = {}  # id(decoded value) -> (value, its text)
        self.loads: Callable[[str], object] = json.loads  # a user of the table may decode its own way

    def __getitem__(self, key: str):
        if key in self._decoded:
            return self._decoded[key]
        stored = self._texts[key]
        try:
            text = _checked_value(key, stored)
            if text is None:
                raise ValueError("check")
            value = self.loads(text)
        except ValueError:  # json.JSONDecodeError too
            del self._texts[key]
            self._damage.say()
            raise KeyError(key) from None
        self._decoded[key] = value
        self.read_texts[id(value)] = (value, stored)
        return value

    def carried(self, key: str) -> Verbatim | None:
        """The entry to write back as it was read, without decoding (nor checking) it; None when
        there is no such entry."""
        stored = self._texts.get(key)
        return Verbatim(stored) if stored is not None else None

    def texts(self) -> Iterator[tuple[str, str]]:
        """(key, the entry's text as read: value and check) of every entry, decoded or not."""
        return iter(self._texts.items())

    def decoded(self, key: str):
        """The value of `key` if it was decoded, else None (never decodes)."""
        return self._decoded.get(key)

    def text(self, key: str) -> str | None:
        """The entry's text as read (value and check), None when there is no such entry; never
        decodes nor checks it: to read the entry, index the table."""
        return self._texts.get(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


class _Damage:
    """Says once per file that it is damaged."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.said = False

    def say(self, detail: str = "") -> None:
        if not self.said:
            self.said = True
            _say(f"cache {self.path} is damaged{detail}; it is rebuilt")


def load(folder: Path, name: str) -> dict:
    """The cached tables of `name` (empty when there is no usable cache file); tables of entries
    are `Entries`, decoded entry by entry."""
    path = folder / f"{name}.json"
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        _say(f"cache {path} cannot be read ({getattr(exc, 'strerror', None) or exc}); it is rebuilt")
        return {}
    # split once: partitioning off the header first copied the whole body (26 MB on saleor) again
    lines = text.split("\n")
    head = lines[0]
    try:
        header = json.loads(head)
    except json.JSONDecodeError as exc:
        _Damage(path).say(f" (not JSON at line {exc.lineno})")
        return {}
    if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("tables"), dict):
        _say(f"cache {path} is not a txscan cache; it is rebuilt")
        return {}
    if header.get("version") != VERSION or header.get("code") != code_fingerprint():
        return {}  # written by another txscan: nothing in it can be trusted to be today's result
    damage = _Damage(path)
    tables = _tables(damage, header["tables"], lines)
    if tables is None:
        damage.say()
        return {}
    return tables


def _tables(damage: _Damage, kinds: dict, lines: list[str]) -> dict | None:
    """The tables of a file's lines (the header's first), None when they are not those `save` writes."""
    lines = lines[1:]
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return None
    try:
        end = json.loads(lines.pop())
    except json.JSONDecodeError:
        return None
    if not isinstance(end, dict) or end.get("entries") != len(lines):
        return None
    texts: dict[str, dict[str, str]] = {n: {} for n, kind in kinds.items() if kind == _ENTRIES}
    tables: dict = {}
    for line in lines:
        parts = line.split("\t", 2)
        if len(parts) != 3 or parts[0] not in kinds:
            return None
        table, key, stored = parts
        try:
            if kinds[table] == _ENTRIES:
                texts[table][_key(key)] = stored
                continue
            value = _checked_value("", stored)
            if value is None:
                return None
            tables[table] = json.loads(value)
        except (json.JSONDecodeError, TypeError):
            return None
    tables.update({n: Entries(damage, t) for n, t in texts.items()})
    return tables


def _key(text: str):
    """An entry's key: a JSON string; one without escapes or quotes inside is its own text
    between the quotes (most keys: file paths, digests), read without the JSON decoder."""
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"' and "\\" not in text and '"' not in text[1:-1]:
        return text[1:-1]
    return json.loads(text)


class Verbatim:
    """An entry to write as the text it was read as, value and check (`Entries.carried`), never
    decoded: what a scan carries over to the next one without reading it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def value(self, key):
        """The entry decoded, None when its text is not what its check was made of or not JSON."""
        text = _checked_value(key, self.text)
        if text is None:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return None


def _read_texts(read: Mapping) -> dict[int, tuple[object, str]]:
    """id(decoded value) -> (value, its text as read), of every entry decoded from the file read."""
    texts: dict[int, tuple[object, str]] = {}
    for table in read.values():
        if isinstance(table, Entries):
            texts.update(table.read_texts)
    return texts


def _lines(tables: dict, read: Mapping) -> Iterator[str]:
    texts = _read_texts(read)
    for table, value in tables.items():
        if isinstance(value, Entries) and value is read.get(table):
            # a table kept whole, as it was read: every entry's text as read (none decoded here)
            for key, stored in value.texts():
                yield f"{table}\t{_encode_key(key)}\t{stored}\n"
        elif isinstance(value, Mapping):
            before = read.get(table)
            for key, entry in value.items():
                stored = entry.text if type(entry) is Verbatim else _text_read(entry, texts, before, key)
                if stored is None:
                    text = _encode(entry)
                    stored = f"{text}\t{entry_check(key, text)}"
                yield f"{table}\t{_encode_key(key)}\t{stored}\n"
        else:
            text = _encode(value)
            yield f"{table}\t\t{text}\t{entry_check('', text)}\n"


def worth_a_process(tables: dict, read: Mapping | None) -> bool:
    """Whether writing `tables` is worth a forked process (cache/__init__.py): more than a
    quarter of their entries are to be encoded anew. The rest are written as the text they were
    read as, which costs little; a fork costs the scan its page tables and a copy of every page
    it touches after it (saleor, one-file change: about 0.1 s, twice the whole file's writing)."""
    read = read or {}
    texts = _read_texts(read)
    anew = total = 0
    for name, value in tables.items():
        if isinstance(value, Entries) and value is read.get(name):
            total += len(value)
        elif isinstance(value, Mapping):
            before = read.get(name)
            total += len(value)
            anew += sum(1 for key, entry in value.items()
                        if type(entry) is not Verbatim and _text_read(entry, texts, before, key) is None)
    return anew * 4 > total


def _text_read(entry, texts: dict, before, key: str) -> str | None:
    """The text `entry` was read from (value and check): it is a value decoded from the file, or
    a new list of the values decoded for the same key (a function's autocommit walks, gathered
    again)."""
    kept = texts.get(id(entry))
    if kept is not None and kept[0] is entry:
        return kept[1]
    if type(entry) is list and isinstance(before, Entries):
        old = before.decoded(key)
        if type(old) is list and len(old) == len(entry) and all(a is b for a, b in zip(old, entry)):
            return texts[id(old)][1]
    return None


def _encode_key(key) -> str:
    # what _encode gives for a string, without json.dumps's own work per call (a fifth of the time)
    return _encode_string(key) if type(key) is str else _encode(key)


_encode_string = json.encoder.encode_basestring_ascii


def _encode(value) -> str:
    # ASCII only: one non-ASCII character anywhere (a file's curly apostrophe) made the whole
    # file's text two or four bytes per character when read (27 MB on saleor), slower to decode
    # and to split, and every entry cut from it narrowed again. Escapes read back the same.
    return json.dumps(value, separators=(",", ":"))


def save(folder: Path, name: str, tables: dict, read: Mapping | None = None) -> None:
    """Write `tables` (a table is a dict of entries, or one value). `read`: the tables this scan
    loaded, whose entries written back as they were decoded keep their text.

    Written atomically (a temporary file renamed over the old one): a scan stopped half-way or
    a concurrent scan never leaves a file that is half one and half the other."""
    header = {"format": FORMAT, "version": VERSION, "code": code_fingerprint(),
              "tables": {t: _ENTRIES if isinstance(v, Mapping) else _VALUE for t, v in tables.items()}}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{name}-{os.getpid()}.tmp"
        try:
            # line by line: the file's text (tens of MB for a large project) is never whole in memory
            with open(temporary, "w", encoding="utf-8") as out:
                out.write(_encode(header) + "\n")
                count = 0
                for line in _lines(tables, read or {}):
                    out.write(line)
                    count += 1
                out.write(_encode({"entries": count}) + "\n")
            os.replace(temporary, folder / f"{name}.json")
        finally:
            temporary.unlink(missing_ok=True)
    except OSError as exc:
        _say(f"cache not written to {folder}: {exc.strerror or exc}")
