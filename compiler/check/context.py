"""What every check pass reads and writes: the :class:`Context` and the :class:`Scope`.

A pass receives one :class:`Context` — the ruleset being checked and the diagnostic sink —
and adds diagnostics to it.  The only state passes share is the call graph: the names pass
records which definition calls which, and the cycle pass reads it.  A :class:`Scope` says which
names are visible at one place inside a definition: its parameters and local names over the
ruleset's situations, choices and profiles.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from compiler import ast as A
from compiler.check.builtins import ARMY_NAMES
from compiler.diagnostics import Sink, Span
from compiler.model.ruleset import Ruleset


@dataclass
class Context:
    """The ruleset under check, the sink diagnostics go to and the call graph passes share.

    >>> from compiler.driver import compile_text
    >>> model = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\n').rulesets[0]
    >>> ctx = Context(model, Sink())
    >>> ctx.ruleset.id, ctx.sink.items, ctx.calls
    ('demo', (), {})
    """

    ruleset: Ruleset
    sink: Sink
    #: definition id -> the (callee id, span of the call) it calls, in the order written;
    #: filled by the names pass, read by the cycle pass.
    calls: dict[str, list[tuple[str, Span]]] = field(default_factory=dict)


class Scope:
    """Names visible at one place: locals over the ruleset's globals."""

    def __init__(self, ctx: Context, owner: str, locals_: Iterable[str] = (), kind: str = "",
                 param_types: dict[str, str] | None = None) -> None:
        self.ctx = ctx
        self.owner = owner
        self.locals: set[str] = set(locals_)
        self.kind = kind  # "army" lets requirements use army quantities
        self.param_types = param_types or {}  # parameter → the situation or stat it is typed by

    def child(self, names: Iterable[str]) -> Scope:
        """This scope with more local names (a ``let``, an attack step)."""
        return Scope(self.ctx, self.owner, self.locals | set(names), self.kind, self.param_types)

    @classmethod
    def of(cls, ctx: Context, owner: str, params: tuple[A.Param, ...]) -> Scope:
        """The scope inside a definition whose parameters are ``params``."""
        types = {p.name: p.type for p in params if isinstance(p.type, str)}
        return cls(ctx, owner, [p.name for p in params], param_types=types)

    def visible(self) -> set[str]:
        """Every name a value may be read from here (for "did you mean")."""
        rs = self.ctx.ruleset
        names = set(self.locals) | set(rs.situations) | set(rs.profiles)
        for s in rs.situations.values():
            names |= set(s.choices)
        if self.kind == "army":
            names |= ARMY_NAMES
        return names
