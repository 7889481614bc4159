"""One module's tree-sitter index facts as JSON, and back, so an unchanged file is not parsed again.

`shape` is the part of the facts other modules' analysis can see (names, bases, decorators,
parameters, assignments), without line numbers, call lists and module-level imports: an edit
inside a function body changes the file's definitions (checked one by one,
analyzer/cache/django.py) but not the project-wide facts every transaction depends on. Which
of a module's imports other modules can see is decided there too.
"""

from __future__ import annotations

import json

from ..digests import blake2b
from ..django.files import SourceFile
from ..django.index import ClassInfo, FunctionInfo, ModuleInfo

_FUNCTION_FIELDS = ("qualname", "module", "name", "cls", "line", "def_line", "end_line", "decorators", "params",
                    "is_async", "calls", "parent", "nested", "imports")
_FUNCTION_SHAPE = ("qualname", "module", "name", "cls", "decorators", "params", "is_async", "parent", "nested",
                   "imports")


def _function(fn: FunctionInfo) -> list:
    return [getattr(fn, name) for name in _FUNCTION_FIELDS]


def _class(cls: ClassInfo) -> list:
    return [cls.qualname, cls.module, cls.name, cls.line, cls.end_line, cls.bases, cls.decorators,
            {name: fn.qualname for name, fn in cls.methods.items()}, cls.assigns,
            [_class(inner) for inner in cls.inner.values()]]


def _class_shape(cls: ClassInfo) -> list:
    return [cls.qualname, cls.bases, cls.decorators, sorted(cls.methods), cls.assigns,
            [_class_shape(inner) for inner in cls.inner.values()]]


def dump(info: ModuleInfo) -> dict:
    """The facts of one indexed module, JSON-ready (its source is not kept: it is read again)."""
    return {"name": info.name, "package": info.is_package, "imports": info.imports, "assigns": info.assigns,
            "functions": [_function(fn) for fn in info.functions.values()],
            "classes": [_class(cls) for cls in info.classes.values()],
            "error": info.has_error, "py2": info.python2_line}


def shape(info: ModuleInfo) -> str:
    """Digest of what the rest of the project can see of this module (no lines, no call lists)."""
    facts = [info.name, info.rel, info.is_package, info.assigns,
             [[getattr(fn, name) for name in _FUNCTION_SHAPE] for fn in info.functions.values()],
             [_class_shape(cls) for cls in info.classes.values()]]
    return blake2b(json.dumps(facts, sort_keys=True).encode(), digest_size=16).hexdigest()


def load(facts: dict, source: SourceFile) -> ModuleInfo:
    """The ModuleInfo `dump` was made from, with today's source text (same content hash)."""
    functions = {}
    for values in facts["functions"]:
        fn = FunctionInfo(*values)
        functions[fn.qualname] = fn
    info = ModuleInfo(facts["name"], source.rel, facts["package"], source, facts["imports"], functions,
                      {}, facts["assigns"], facts["error"], facts["py2"])
    for values in facts["classes"]:
        cls = _load_class(values, functions)
        info.classes[cls.name] = cls
    return info


def _load_class(values: list, functions: dict[str, FunctionInfo]) -> ClassInfo:
    qualname, module, name, line, end_line, bases, decorators, methods, assigns, inner = values
    cls = ClassInfo(qualname, module, name, line, end_line, bases, decorators,
                    {method: functions[q] for method, q in methods.items()}, assigns)
    for child in inner:
        loaded = _load_class(child, functions)
        cls.inner[loaded.name] = loaded
    return cls
