"""The words every ruleset has without defining them: builtin functions and attributes.

This is the checker's view of the language's builtins (how many values each function takes,
what it does in words, which attribute names belong to values, which quantities an army
requirement may name).  It is kept in this one small module so that it can be swapped for the
language's builtin registry without touching the passes that read it.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

#: Functions every ruleset can call, with the least and the most values each takes.
BUILTINS: Mapping[str, tuple[int, int]] = MappingProxyType({
    "min": (1, 99), "max": (1, 99), "abs": (1, 1), "ceil": (1, 1), "floor": (1, 1),
    "clamp": (3, 3), "even": (1, 1), "odd": (1, 1),
    "P": (1, 1), "mean": (1, 1), "natural": (1, 1),
    "reroll": (2, 2), "explode": (2, 3), "highest": (2, 2), "lowest": (2, 2),
})

#: What the less obvious builtins do, in words: the hint of a call with the wrong arity.
BUILTIN_WORDS: Mapping[str, str] = MappingProxyType({
    "P": "the probability that a condition holds",
    "mean": "the average value",
    "natural": "the unmodified face of a die or test",
    "reroll": "re-roll a die once when it shows one of the given faces: reroll(d6, 1)",
    "explode": "roll again and add on the given face: explode(d6, 6[, times])",
    "highest": "the highest of k dice: highest(2, d6)",
    "lowest": "the lowest of k dice: lowest(2, d6)",
})

#: Attribute names that belong to values rather than to the ruleset (``unit.models``…).
BUILTIN_ATTRS: frozenset[str] = frozenset({"models", "successes", "failures", "natural", "points", "title"})

#: Quantities an army requirement can talk about.
ARMY_NAMES: frozenset[str] = frozenset({
    "points", "limit", "squads", "units", "models", "reserve_points", "special_points",
    "detachments", "characters", "warlords",
})
