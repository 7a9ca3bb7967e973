"""Bands of distance: the distances at which a volley's worth is the same.

A volley's worth at a distance (:meth:`~compiler.battle.estimates.Estimates.expected`) reads the
distance in two places only: which weapons reach the target (a weapon's reach stat, ``Range 24"``,
at least the distance; ``without Range``: the target in contact) and the situation the resolver
works in (the situation ``distance``, when the ruleset declares it: the distance in whole inches,
within its range).  So two distances that no weapon's reach separates, and that round to the same
whole inch when the situation is declared, give every volley the same worth: they fall in one
:func:`Bands.of`.  A ruleset with derived situations (``situation … is … when …``, whose
conditions may read the distance exactly) has no bands: each distance is its own.

>>> from compiler.battle.rules import Rules
>>> from compiler.driver import compile_text
>>> source = '''
... ruleset r "R":
...   version 1.0.0
... stat Range "Range" 0..100
... unit u "U":
...   weapons gun
... weapon gun "Gun":
...   Range 24
... weapon knife "Knife":
...   Range 0
... '''
>>> bands = Bands(Rules(compile_text(source, "r.rules").rulesets[0]))
>>> bands.of(3.5) == bands.of(20.0) == bands.of(24.0), bands.of(24.0) == bands.of(24.5), bands.of(0.0) == bands.of(0.5)
(True, False, False)
"""
from __future__ import annotations

import bisect
from typing import Any

from compiler.battle.rules import Rules


class Bands:
    """The bands of distance of a ruleset's volleys (see the module's docstring)."""

    __slots__ = ("exact", "thresholds", "rounded", "low", "high", "_runs")

    def __init__(self, rules: Rules) -> None:
        #: derived situations may read the distance exactly: no bands
        self.exact = bool(rules.derived)
        # every reach a weapon has by any stat (a superset of those an attack reads: finer bands,
        # the same worths), and 0 (``without Range``: in contact or not)
        reaches = {rules.reach(p, s) for p in rules.model.profiles for s in rules.model.stats}
        self.thresholds = sorted(reaches | {0.0})
        #: the situation ``distance`` is declared: the whole inch counts (within its range)
        self.rounded = "distance" in rules.situations
        ends = rules.distance_range
        self.low: int | None = ends[0] if ends is not None else None
        self.high: int | None = ends[1] if ends is not None else None
        self._runs: dict[tuple[float, int], tuple[Any, ...]] = {}

    def of(self, distance: float) -> Any:
        """The band of ``distance``: equal for two distances at which every volley is worth the same."""
        if self.exact:
            return distance
        k = bisect.bisect_left(self.thresholds, distance)  # the reaches short of the distance
        if not self.rounded:
            return k
        d = int(round(distance))
        if self.low is not None and self.high is not None:  # as the situation's range clamps it
            d = max(self.low, min(self.high, d))
        return (k, d)

    def run(self, gap: float, steps: int) -> tuple[Any, ...]:
        """The bands of the distances left after each step of a move of 0 to ``steps - 1`` inches
        toward an enemy ``gap`` inches off (kept per gap: positions on a table recur)."""
        key = (gap, steps)
        found = self._runs.get(key)
        if found is None:
            found = self._runs[key] = tuple([self.of(max(0.0, gap - d)) for d in range(steps)])
        return found
