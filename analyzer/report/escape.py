"""Showing text from scanned code safely: HTML, attributes, inline JSON, Markdown tables, links.

File names, function and application names, code excerpts, diagnostics and manifest URLs are
all chosen by whoever wrote the scanned code, so none of them may become markup.
"""

from __future__ import annotations

import hashlib
import json
import re
from urllib.parse import quote

from markupsafe import Markup, escape


def autoescape(template_name: str | None) -> bool:
    """HTML templates (`*.html.j2`) and string templates escape; Markdown escapes through `markdown`."""
    return not (template_name or "").endswith(".md.j2")


def pct(value: float | None) -> str:
    """A share as a percentage, rounded here and only here."""
    return "n/a" if value is None else f"{100 * value:.1f}%"


def fraction(pair: list[int] | tuple[int, int]) -> str:
    part, whole = pair
    return f"{pct(part / whole if whole else None)} ({part}/{whole})"


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip(".-") or "app"


def unique_slugs(names: list[str]) -> dict[str, str]:
    """A file name per application; names that are not already safe get a hash suffix so two never collide."""
    out = {}
    for name in names:
        base = slug(name)
        out[name] = base if base == name else f"{base}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    return out


MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|<>#])")


def markdown(value) -> str:
    """Text for a Markdown table cell: no line breaks, no `|` that ends the cell, no inline HTML or markup."""
    text = re.sub(r"[\r\n\u2028\u2029\x0b\x0c]+", " ", "" if value is None else str(value))
    return MARKDOWN_SPECIAL.sub(r"\\\1", text)


def breakable(value) -> Markup:
    """Escaped text with line-break opportunities after `/`, `.` and `:`, so long paths and names wrap between
    their parts instead of inside a word."""
    parts = re.split(r"(?<=[/.:])", "" if value is None else str(value))
    return Markup("<wbr>").join(escape(p) for p in parts)


SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027", "\u2028": "\\u2028",
                 "\u2029": "\\u2029"}


def script_json(value) -> Markup:
    """JSON safe inside <script>: no `</script>`, `<!--`, HTML entities or JavaScript line terminators.
    Compact (no spaces after separators): a survey's transaction browser carries megabytes of it."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Markup(re.sub("[<>&'\u2028\u2029]", lambda m: SCRIPT_UNSAFE[m.group()], text))


def where(item) -> str:
    """One entry of a transaction's `incomplete` list (a string, or a record with file, line and reason)."""
    if isinstance(item, dict):
        place = ":".join(str(item[k]) for k in ("file", "line") if item.get(k) is not None)
        detail = " ".join(str(item[k]) for k in ("reason", "kind", "callee", "message") if item.get(k))
        return f"{place} {detail}".strip() or json.dumps(item, sort_keys=True)
    return str(item)


def web_url(url: str | None) -> str | None:
    """The URL if it is a web address; anything else (javascript:, file:, data:) never becomes a link."""
    return url if url and re.match(r"^https?://[^\s/]+(/|$)", str(url)) else None


def source_url(app: dict | None, file: str | None, line: int | None) -> str | None:
    """The file at the application's pinned commit on its host, when the manifest gave a URL and a commit."""
    if not app or not file or not app.get("url") or not app.get("commit"):
        return None
    if not web_url(app["url"]):
        return None
    base = str(app["url"]).rstrip("/").removesuffix(".git")
    subdir = (app.get("subdir") or ".").strip("/")
    path = file if subdir in ("", ".") else f"{subdir}/{file}"
    path, commit = quote(path, safe="/"), quote(str(app["commit"]), safe="")
    anchor = f"#L{int(line)}" if line else ""
    if "gitlab" in base.split("/")[2]:
        return f"{base}/-/blob/{commit}/{path}{anchor}"
    if "bitbucket.org" in base:
        return f"{base}/src/{commit}/{path}" + (f"#lines-{int(line)}" if line else "")
    return f"{base}/blob/{commit}/{path}{anchor}"
