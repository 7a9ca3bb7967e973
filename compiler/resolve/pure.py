"""What depends on distributions and numbers alone, kept for the whole process.

Some of the resolver's work is a function of immutable values and nothing else — not of the
ruleset, the profiles, the situation or the question:

- a test's outcome once its roll is settled: the dice, the target after modifiers and caps, the
  natural faces that always fail or pass, the re-rolls (:func:`compiler.resolve.tests.run_test`);
- a step of an attack through a test without hooks: the bags of tokens, the chance to pass and
  whether passes or failures go on (:func:`compiler.resolve.tokens.advance`);
- an amount summed over each attack's tokens (how many tokens each attack has is kept on the
  distribution of its bags, which is immutable).

Each is worked out once per process, as dice libraries keep their own tables: a new matchup,
or a ruleset asked its first question, pays for reading its own numbers and not again for
rolling a d6 against 4+.  The keys hold values only (distributions compare by value), so what
is kept is right for any ruleset.

>>> from compiler.resolve.dist import Dist
>>> calls = []
>>> def make():
...     calls.append(1)
...     return Dist.die(6).map(lambda n: n >= 4)
>>> first = kept(("doctest", Dist.die(6), 4), make)
>>> again = kept(("doctest", Dist.die(6), 4), make)
>>> first is again, len(calls)
(True, 1)
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from compiler.resolve.core import Roll, unwrap

MAX_KEPT = 50_000  # entries; past it, the store starts again

_store: dict[Any, Any] = {}


def kept(key: Any, make: Callable[[], Any]) -> Any:
    """The value kept for ``key``, made (and kept) the first time it is asked for."""
    value = _store.get(key)
    if value is None:
        if len(_store) >= MAX_KEPT:
            _store.clear()
        value = _store[key] = make()
    return value


def forget() -> None:
    """Empty the store (a benchmark's fresh start; answers do not change)."""
    _store.clear()


def pass_chance(outcome: Any) -> Fraction | None:
    """The chance that a test with this exact outcome passes, or None when the outcome has a
    truncated part (then the general way is taken).  Kept on the distribution, which is
    immutable."""
    known = outcome.__dict__.get("_pass_chance", False)
    if known is not False:
        return known  # type: ignore[no-any-return]
    chance: Fraction | None = None
    if not outcome._trunc:
        passing = 0
        for o, w in outcome._items:
            if o.success if isinstance(o, Roll) else bool(unwrap(o)):
                passing += w
        chance = Fraction(passing, outcome._denom)
    outcome.__dict__["_pass_chance"] = chance
    return chance
