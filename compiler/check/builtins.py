"""The words every ruleset has without defining them: builtin functions and attributes.

This is the checker's view of the language's builtins: how many values each function takes
and what it does in words come from the builtin registry (:mod:`compiler.syntax.builtins`);
which attribute names belong to values and which quantities an army requirement may name
are the checker's own.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from compiler.syntax.builtins import BUILTINS as REGISTRY

#: Functions every ruleset can call, with the least and the most values each takes.
BUILTINS: Mapping[str, tuple[int, int]] = MappingProxyType({name: b.arity for name, b in REGISTRY.items()})

#: What the less obvious builtins (those that read dice) do, in words: the hint of a call with the wrong arity.
BUILTIN_WORDS: Mapping[str, str] = MappingProxyType(
    {name: b.doc for name, b in REGISTRY.items() if b.static is None})

#: Attribute names that belong to values rather than to the ruleset (``unit.models``…).
BUILTIN_ATTRS: frozenset[str] = frozenset({"models", "successes", "failures", "natural", "points", "title"})

#: Quantities an army requirement can talk about.
ARMY_NAMES: frozenset[str] = frozenset({
    "points", "limit", "squads", "units", "models", "reserve_points", "special_points",
    "detachments", "characters", "warlords", "reserve_warlords",
})
