"""Project-wide facts the walk needs: the user model, signal receivers, reverse accessors,
and which parameter names stand for which model."""

from __future__ import annotations

import re

from . import orm_catalog as orm
from .index import RepoIndex
from .models import Entity


def django_user(name: str) -> Entity:
    """django.contrib.auth's User, when the application relates to it without defining its own."""
    return Entity(name=name, qualname="django.contrib.auth.models.User", table="auth_user",
                  file="<django.contrib.auth>", line=0, pk=["id"], unique=[["username"]],
                  fields=["email", "first_name", "id", "is_active", "is_staff", "last_name", "password", "username"],
                  relations=[], abstract=False, managers=["objects"])


_APP_MODEL_LITERAL = re.compile(r"""["']\w+\.(\w+)["']""")


def auth_user(index: RepoIndex) -> str:
    for info in index.modules.values():
        value = info.assigns.get("AUTH_USER_MODEL")
        # `"accounts.Account"`, or a default such as `getattr(settings, "AUTH_USER_MODEL", "auth.User")`:
        # the first "app_label.Model" literal names the model; anything else is not a model name.
        label = _APP_MODEL_LITERAL.search(value or "")
        if label:
            return label.group(1)
    return "User"


def _custom_signal(index: RepoIndex, qualname: str) -> str | None:
    """`my_signal = Signal()` at module level: the event `custom:<qualified name>`; its
    `send()` runs the receivers (orm_catalog.CUSTOM_SIGNAL_SENDS)."""
    module, _, name = qualname.rpartition(".")
    info = index.modules.get(module)
    text = (info.assigns.get(name) or "").strip() if info is not None else ""
    head = text.split("(", 1)[0].strip()
    if "(" in text and index.resolve(module, head) in orm.SIGNAL_CLASSES:
        return f"custom:{qualname}"
    return None


def signals(index: RepoIndex) -> dict[tuple[str, str], list[str]]:
    receivers: dict[tuple[str, str], list[str]] = {}

    def add(signal: str, sender: str, fn: str, module: str) -> None:
        resolved = index.resolve(module, signal)
        event = orm.SIGNALS.get(resolved) or _custom_signal(index, resolved)
        if event is None:
            return
        entity = "*" if sender == "*" else index.resolve(module, sender).split(".")[-1]
        receivers.setdefault((event, entity), []).append(fn)

    for fn in index.functions.values():
        for decorator in fn.decorators:
            if not decorator.startswith(("receiver(", "dispatch.receiver(")) and "receiver(" not in decorator:
                continue
            match = re.match(r"[\w.]*receiver\(\s*(\[[^\]]*\]|[\w.]+)\s*,?(.*)\)$", decorator, re.S)
            if not match:
                continue
            signals = re.findall(r"[\w.]+", match.group(1))
            sender = re.search(r"sender\s*=\s*([\w.]+)", match.group(2))
            for signal in signals:
                # Without a sender the receiver runs for every model's signal: entity "*".
                add(signal, sender.group(1) if sender else "*", fn.qualname, fn.module)
    for info in index.modules.values():
        if ".connect(" not in info.source.text:
            continue
        for signal, fn, sender in connect_calls(_CONNECT_WITH_SENDER, info.source.text):
            add(signal, sender, index.resolve(info.name, fn), info.name)
        for signal, fn in connect_calls(_CONNECT_TO_ALL, info.source.text):
            add(signal, "*", index.resolve(info.name, fn), info.name)
    return {key: sorted(set(value)) for key, value in receivers.items()}


# `signal.connect(receiver, sender=Model)` and `signal.connect(receiver)` (every sender).
_CONNECT_WITH_SENDER = re.compile(r"([\w.]+)\.connect\(\s*([\w.]+)\s*,\s*sender\s*=\s*([\w.]+)")
_CONNECT_TO_ALL = re.compile(r"([\w.]+)\.connect\(\s*([\w.]+)\s*(?:,\s*(?:weak|dispatch_uid)\s*=[^)]*)?\)")


def connect_calls(pattern: re.Pattern, text: str) -> list[tuple]:
    """`pattern.findall(text)` for a pattern that begins `([\\w.]+)\\.connect\\(`, without trying
    the pattern at every character: a match starts where the run of word characters and dots
    before a `.connect(` starts (findall's leftmost start; its matches end at a run's end or a
    `)`, so none starts inside an earlier one). A search at every position was about 2 ms per
    module holding `.connect(` (healthchecks: 11 ms of the models phase, in each process)."""
    found, end = [], 0
    at = text.find(".connect(")
    while at >= 0:
        start = at
        while start > end and (text[start - 1].isalnum() or text[start - 1] in "._"):  # `[\w.]`
            start -= 1
        match = pattern.match(text, start) if start < at else None
        if match is not None:
            found.append(match.groups())
            end = match.end()
        at = text.find(".connect(", max(at + 1, end))
    return found


def param_names(entities, auth_user: str) -> dict:
    """`order_line` -> OrderLine: parameter names that name exactly one model."""
    names: dict[str, list] = {}
    for entity in entities:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", entity.name.split(".")[-1]).lower()
        names.setdefault(snake, []).append(entity)
        if entity.name == auth_user:
            names.setdefault("user", []).append(entity)
    # A name that is the tail of exactly one model's name (`mail` -> QueuedMail) counts too,
    # unless it already names a model of its own.
    for entity in entities:
        parts = re.sub(r"(?<!^)(?=[A-Z])", "_", entity.name.split(".")[-1]).lower().split("_")
        for cut in range(1, len(parts)):
            names.setdefault("_".join(parts[cut:]) + "#tail", []).append(entity)
    out = {name: found[0] for name, found in names.items() if len({e.name for e in found}) == 1 and "#" not in name}
    for key, found in names.items():
        name = key[:-5] if key.endswith("#tail") else None
        if name and name not in names and name not in _NOT_MODEL_NAMES and len({e.name for e in found}) == 1:
            out[name] = found[0]
    return out


# Parameter names that are almost never a model instance, whatever the models are called
# (`request` is not a ReturnRequest).
_NOT_MODEL_NAMES = {"request", "response", "data", "context", "form", "serializer", "payload", "params", "query",
                    "value", "item", "result", "message", "config", "settings", "status", "type", "kind", "name",
                    "key", "token", "code", "state", "info", "file", "path", "url", "task", "job"}


def reverse_accessors(entities) -> dict[str, dict[str, tuple]]:
    reverse: dict[str, dict[str, tuple]] = {}
    for entity in entities:
        for relation in entity.relations:
            target, name = relation["target"], relation["reverse"]
            if not target or not name:
                continue
            through = f"{entity.name}.{relation['attribute']}" if relation["kind"] == "m2m" else None
            reverse.setdefault(target, {})[name] = (entity.name, relation["attribute"], relation["kind"], through)
    return reverse
