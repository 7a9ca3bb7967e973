"""A volley's outcome drawn together with the count of one of its steps.

A rule may read what a volley counted on its way (a counter that rises with the *hits*, while the
casualties come from the models removed): the volley's chance node must then draw the pair from
its joint law, not each from its own.  The attack is read as a chain of counts, as
:mod:`compiler.battle.dice` reads it for the dice shown: a number of first dice ``n`` (``shots``),
then steps that each pass every die of the step before through a test with the same chance, on its
own, then the removal of the last count.  The count ``h`` of the named step given ``n`` is then
binomial, the last count ``u`` given ``h`` binomial too, and the removal given ``u`` the resolver's
own law, so that

    P(h, removed, damaged) = Σₙ P(n) · Bin(n, pₕ)(h) · Σᵤ Bin(h, p_last / pₕ)(u) · P(removed, damaged | u)

with ``pₕ`` the chance that a first die gets as far as the named step.  The count the removal
takes (``u`` itself) needs no chain: P(u, removed, damaged) = P(u) · P(removed, damaged | u),
whatever made ``u`` (extra hits, ``each becomes``), as long as its dice carry nothing of their
own into the removal (a hook's ``+1 D`` or mortal wounds).  The numbers are the
resolver's (exact fractions when the rules are worked out exactly); the law summed over ``h`` is
held to the volley's own law, so an attack that is no such chain (an ability acting on one of its
tests, a test that reads an earlier step) is refused rather than drawn wrong.  What ``check``
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
                         "make the counter read the count the removal takes, or a step on the attack's chain "
                         "of tests toward it (hits = shots each hit(…)) whose tests no hook is on")


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
    last, first = chain[0], chain[-1]
    removal_given = _removals(steps, last, removal)
    out: dict[tuple[int, int, int], Any] = {}
    if step == last:  # the count the removal takes: the models removed given it, whatever made it
        for u, pu in _counts(steps[last], last, span).items():
            for (r, d), pr in removal_given(u).items() if pu else ():
                out[(u, r, d)] = out.get((u, r, d), 0) + pu * pr
        _agrees(out, steps.removal_state(removal), attack, step, span)
        return out
    prior = _counts(steps[first], first, span)
    # the chance that a first die gets as far as each step of the chain (1 for the first dice)
    reach: dict[str, Any] = {first: Fraction(1)}
    for name in chain[:-1]:
        if name not in steps.sums:
            raise CountError(f"its step '{name}' is not worked out die by die", span)
        _, per_attack, src, _ = steps.sums[name]
        if src != first:
            raise CountError("its steps count from different dice", span)
        per = _counts(per_attack, name, span)
        if not set(per) <= {0, 1}:
            raise CountError(f"its step '{name}' makes more than one die of one", span)
        reach[name] = per.get(1, 0)
    p_step, p_last = reach[step], reach[last]
    q = p_last / p_step if p_step else p_last  # no die gets to the step: none to the last either
    for n, pn in prior.items():
        for h in range(n + 1):
            ph = pn * _binomial(n, h, p_step)
            for u in range(h + 1):
                pu = ph * _binomial(h, u, q)
                if not pu:
                    continue
                for (r, d), pr in removal_given(u).items():
                    key = (h, r, d)
                    out[key] = out.get(key, 0) + pu * pr
    _agrees(out, steps.removal_state(removal), attack, step, span)
    return out


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
