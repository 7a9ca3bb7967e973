"""A volley's outcome drawn together with the count of one of its steps.

A rule may read what a volley counted on its way (a counter that rises with the *hits*, while the
casualties come from the models removed): the volley's chance node must then draw the pair from
its joint law, not each from its own.  The named step's count ``h`` has the resolver's own law,
whatever made it (extra hits from a hook, ``each becomes``); from there the attack is read as a
chain, as :mod:`compiler.battle.dice` reads it for the dice shown: steps that each pass every die
of the step before through a test, on its own and with the same chance, up to the count ``u`` the
removal takes.  Given ``h``, ``u`` is then binomial and the removal given ``u`` the resolver's own
law, so that

    P(h, removed, damaged) = P(h) · Σᵤ Bin(h, q)(u) · P(removed, damaged | u)

with ``q`` the chance that a die at the step gets to the removal's count: what a first die makes
there on average over what it makes at the step (1 when the step is the removal's).  The numbers
are the resolver's (exact fractions when the rules are worked out exactly); the law summed over
``h`` is held to the volley's own law, so an attack that is no such chain (a test that reads an
earlier step) is refused rather than drawn wrong.  What ``check``
refuses before the battle (W870) is decided by :meth:`compiler.ast.Attack.uncounted`, which this
module asks first.
"""
from __future__ import annotations

from fractions import Fraction
from functools import partial
from math import comb
from typing import Any

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.resolve import Dist, ResolveError
from compiler.resolve.core import is_dist, unwrap
from compiler.resolve.steps import LazySteps
from compiler.resolve.tokens import held_hooks

__all__ = ["CountError", "joint_with_count"]

#: How far the law summed over the count may stray from the volley's own (fast mode's rounding).
TOLERANCE = 1e-9


class CountError(ResolveError, ValueError):
    """The volley's count cannot be drawn with its outcome (the attack is no chain of tests),
    located at the attack's step."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(f"a volley cannot be drawn with the count a counter reads: {message}", span,
                         "make the counter read the count the removal takes (killed = wounds removes "
                         "target: wounds), or rise by a number")


def joint_with_count(steps: LazySteps, attack: A.Attack, step: str, removal: str,
                     tests: dict[str, A.Test]) -> dict[tuple[int, int, int], Any]:
    """The joint law of (count of ``step``, models removed, wounds on the damaged model) for the
    volley whose worked-out steps are ``steps`` (see the module's docstring)."""
    chain = attack.counted_chain(tests)
    span = next((s.span for s in attack.steps if s.name == step), attack.span)
    # every step through a test is worked out in the one evaluator of the call
    hooks = held_hooks(next(iter(steps.sums.values()))[0]) if steps.sums else ()
    refused = attack.uncounted(step, tests, hooks)
    if refused is not None:
        raise CountError(refused[0], span)
    last = chain[0]
    removal_given = _removals(steps, last, removal)
    # the count of the step, whatever made it; each of its dice goes on to the removal's count alone
    q = _onward(steps, step, last, span) if step != last else Fraction(1)
    out: dict[tuple[int, int, int], Any] = {}
    for h, ph in _counts(steps[step], step, span).items():
        for u in range(h + 1):
            pu = ph * _binomial(h, u, q)
            if not pu:
                continue
            for (r, d), pr in removal_given(u).items():
                key = (h, r, d)
                out[key] = out.get(key, 0) + pu * pr
    _agrees(out, steps.removal_state(removal), attack, step, span)
    return out


def _onward(steps: LazySteps, step: str, last: str, span: Span) -> Any:
    """The chance that one die at ``step`` gets to ``last``: what a first die makes there on
    average over what it makes at ``step`` (each die at ``step`` goes on alone, with that chance)."""
    if last not in steps.sums:
        raise CountError(f"its step '{last}' is not worked out die by die", span)
    _, per_last, src, _ = steps.sums[last]
    if step == src:
        at_step: Any = Fraction(1)
    elif step in steps.sums and steps.sums[step][2] == src:
        at_step = _mean(_counts(steps.sums[step][1], step, span))
    else:
        raise CountError("its steps count from different dice", span)
    return _mean(_counts(per_last, last, span)) / at_step if at_step else Fraction(0)


def _mean(law: dict[int, Any]) -> Any:
    return sum((k * p for k, p in law.items()), Fraction(0))


def _agrees(joint: dict[tuple[int, int, int], Any], law: dict[tuple[int, int], Any], attack: A.Attack,
            step: str, span: Span | None = None) -> None:
    """The joint law summed over the count must be the volley's own law."""
    summed: dict[tuple[int, int], Any] = {}
    for (_, r, d), p in joint.items():
        summed[(r, d)] = summed.get((r, d), 0) + p
    for key in set(summed) | set(law):
        a, b = summed.get(key, 0), law.get(key, 0)
        if isinstance(a, Fraction) and isinstance(b, Fraction) and a != b \
                or abs(float(a) - float(b)) > TOLERANCE:
            raise CountError(f"the count of '{step}' does not decide the models attack '{attack.id}' removes "
                             "(its tests depend on each other)", span)


def _removals(steps: LazySteps, last: str, removal: str) -> Any:
    """The removal's joint law given ``u`` dice at step ``last``, kept per ``u``."""
    kept: dict[int, dict[tuple[int, int], Any]] = {}

    def given(u: int) -> dict[tuple[int, int], Any]:
        found = kept.get(u)
        if found is None:
            found = kept[u] = removal_given_dice(steps, last, removal, u)
        return found
    return given


def removal_given_dice(steps: LazySteps, last: str, removal: str, u: int) -> dict[tuple[int, int], Any]:
    """The joint law of the removal step (models removed, wounds on the damaged model) when step
    ``last`` comes out at exactly ``u``: the steps before are read through, the later ones worked
    out again from that count."""
    view = LazySteps()
    for s in steps:
        view.later(s, partial(_read, steps, s))
    view.wound_states = steps.wound_states
    view[last] = Dist.const(u)
    return dict(view.removal_state(removal))


def _read(steps: LazySteps, name: str, _view: LazySteps) -> Any:
    return steps[name]


def _binomial(n: int, k: int, p: Any) -> Any:
    return comb(n, k) * p ** k * (1 - p) ** (n - k)


def _counts(value: Any, name: str, span: Span | None = None) -> dict[int, Any]:
    """A count (a whole number or a distribution of them) as {count: chance}."""
    if not is_dist(value):
        n = unwrap(value)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise CountError(f"its step '{name}' is not a number of dice", span)
        return {n: Fraction(1)}
    out: dict[int, Any] = {}
    for k, p in value.probabilities().items():
        n = unwrap(k)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise CountError(f"its step '{name}' is not a number of dice", span)
        out[n] = out.get(n, 0) + p
    return out
