"""A definition's parameters as the walk binds and types them, worked out once per definition.

Every walk of a function binds its call's arguments to the parameters (`bind_parameters`) and
types the untyped ones from their annotation or their name (`Walker.type_parameters`). Which
parameters there are, which one is the receiver, their defaults' literals and the model an
annotation names are the same at every call of a definition: rendering the annotations and
splitting the parameter lists again at each of a scan's thousands of helper walks was about a
twentieth of the walk. `Signature` holds them, kept per scan in Context.signatures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .syntax import code as _code
from .values import Val, constant


@dataclass
class Signature:
    receiver: str | None        # the parameter bound to the receiver (self, cls), if any
    receiver_class: str | None  # the class a missing receiver is an instance of
    ordered: tuple              # ((name, default Val), ...) after the receiver, in order
    star_arg: str | None        # `*args`
    keyword_only: tuple         # ((name, default Val), ...)
    star_kwarg: str | None      # `**kwargs`
    typed: tuple                # ((name, the Param), ...): every named parameter, for typing
    # name -> the model the walk types a plain argument as (None: none), filled on first use
    # (most parameters are never asked: their arguments are typed already or literals).
    entities: dict = field(default_factory=dict)


def signature_of(ctx, definition: cst.FunctionDef, fn) -> Signature:
    """The definition's Signature, made at its first call in the scan (`fn` its index entry)."""
    memo = ctx.signatures
    hit = memo.get(id(definition))
    if hit is not None and hit[0] is definition and hit[1] is fn:
        return hit[2]
    signature = _signature(definition, fn)
    memo[id(definition)] = (definition, fn, signature)
    return signature


def _signature(definition: cst.FunctionDef, fn) -> Signature:
    params = definition.params
    ordered = list(params.posonly_params) + list(params.params)
    is_static = any(d.split("(")[0].endswith("staticmethod") for d in fn.decorators)
    receiver = None
    if fn.cls and not is_static and ordered:
        receiver = ordered.pop(0).name.value
    star = params.star_arg.name.value if params.star_arg is not None and isinstance(params.star_arg, cst.Param) \
        else None
    return Signature(
        receiver=receiver, receiver_class=fn.cls,
        ordered=tuple((p.name.value, default_value(p, p.name.value)) for p in ordered),
        star_arg=star,
        keyword_only=tuple((p.name.value, default_value(p, p.name.value)) for p in params.kwonly_params),
        star_kwarg=params.star_kwarg.name.value if params.star_kwarg is not None else None,
        typed=tuple((p.name.value, p) for p in
                    list(params.posonly_params) + list(params.params) + list(params.kwonly_params)))


def default_value(param: cst.Param, name: str) -> Val:
    """A parameter the call does not pass: its default, kept as a literal when it is one."""
    default = param.default
    if isinstance(default, (cst.Integer, cst.Float, cst.SimpleString)):
        return constant(default.value)
    if isinstance(default, cst.Name) and default.value in ("None", "True", "False"):
        return constant(default.value)
    return constant(f"default:{name}")


def parameter_entity(ctx, parsed, signature: Signature, name: str, param: cst.Param):
    """The model a plain argument for `param` stands for: the one its annotation names or,
    without an annotation, the one whose parameter name it is (`invoice` -> Invoice)."""
    try:
        return signature.entities[name]
    except KeyError:
        entity = signature.entities[name] = _annotation_entity(ctx, parsed, param) or (
            ctx.entity_by_param_name.get(name) if param.annotation is None else None)
        return entity


def _annotation_entity(ctx, parsed, param: cst.Param):
    if param.annotation is None:
        return None
    text = _code(param.annotation.annotation).strip("'\"")
    text = text.split("|")[0].strip().removeprefix("Optional[").rstrip("]")
    return ctx.entity_for_class(ctx.index.resolve(parsed.info.name, text))
