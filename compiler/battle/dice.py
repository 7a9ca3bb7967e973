"""The dice of a volley for a reader: each step's count and faces, drawn given the volley's outcome.

A volley is never rolled die by die: its outcome (the models removed, the wounds left on the
damaged model) is drawn in one go from its exact law (:meth:`~compiler.battle.rules.Rules.volley`).
A person reading the battle wants to see dice, so when — and only when — a log for people is
asked (``warscribe play``, its replay), :class:`VolleyDice` draws the steps' counts *given that
outcome*, from the exact laws of the steps, and then faces that agree with each count:

* the attack is read as a chain of counts: a number of dice (``shots = shooter.models each
  weapon.A``), then steps that each pass every die of the step before through a test
  (``hits = shots each hit(shooter.BS)``, ``unsaved = hits each not save(target.Sv)``), then the
  removal (``killed = unsaved removes target``).  Each die of a step passes with the same chance,
  on its own, so the count of a step given the count before it is binomial, and the removal given
  the last count is the resolver's own law of casualties for that many;
* the counts are drawn by forward filtering, backward sampling: the chance of the outcome given
  each count of each step (backwards, from the removal), then each count given the one before and
  the outcome (forwards).  That is the exact conditional law of the counts; a test holds it to the
  joint law of (hits, unsaved, removed) written out by enumeration;
* a step's faces are drawn from the test's own law of the natural face, given passed (or failed,
  for ``not save``): the counted dice from the faces that count, the others from the rest.

The draws use a stream of their own, seeded from the battle's seed: the battle's stream is never
touched, so the same seed plays the same game with or without the dice shown.

Shown as counts only, with a note, when a step's faces cannot be shown as rolled (a test that
re-rolls, a custom die, several dice, a chained target); not shown at all, with a note, when the
attack is no such chain (an ability hooks one of its tests, a step makes several dice of one,
damage counted by a step of its own), because then the counts alone would not follow the law.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from math import comb
from typing import Any, Callable

from compiler import ast as A
from compiler.battle.joint import removal_given_dice
from compiler.battle.rules import Law, Rules, removal_step
from compiler.battle.state import Unit
from compiler.diagnostics import Span
from compiler.model.values import ProfileRef
from compiler.resolve import ResolveError
from compiler.resolve.core import Roll, is_dist, unwrap
from compiler.resolve.steps import LazySteps
from compiler.resolve.tokens import hooked_tests

__all__ = ["VolleyDice"]

_SPAN = Span("<dice>", 0, 0, 0, 0)
_ACTOR = "@dice-actor"
_TARGET = "@dice-target"
#: The most dice a step may count for its dice to be drawn (the work grows as its square).
MAX_DICE = 400
#: How far the chain's chance of the outcome may stray from the volley's law (rounding).
TOLERANCE = 1e-9

Faces = tuple[tuple[int, ...], tuple[float, ...]]  # faces and their weights


@dataclass(frozen=True, slots=True)
class StepDice:
    """One step of the chain: each die of the step before goes on with chance ``p``."""

    name: str
    rule: str  # the test's id
    p: float
    counted: Faces | None  # the natural faces of a die that goes on, with weights (None: not shown)
    others: Faces | None  # those of a die that does not
    note: str | None  # why the faces are not shown ("the test re-rolls")


@dataclass(slots=True)
class Chain:
    """An attack read as a chain of counts, for one volley's numbers."""

    count: str  # the step that counts the first dice
    prior: dict[int, float]  # its law
    steps: tuple[StepDice, ...]
    removal: Callable[[int], dict[tuple[int, int], float]]  # (removed, damaged) given the last count
    given: dict[tuple[int, ...], tuple[float, list[list[float]]]] = field(default_factory=dict)  # outcome → its chance, betas


class VolleyDice:
    """Draws the dice of volleys, given their outcomes, from a stream seeded by ``seed``."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules = rules
        self.rng = random.Random(f"warscribe-dice:{seed}")
        self._chains: dict[tuple[Any, ...], Chain | str] = {}
        self._removals: dict[tuple[Any, ...], dict[tuple[int, int], float]] = {}

    def volley(self, attack: A.Attack, actor: Unit, weapon: str | None, target: Unit,
               situation: tuple[tuple[str, Any], ...], law: Law, i: int, counted: str | None = None) -> dict[str, Any]:
        """The fields a volley's event gets: ``dice`` (one entry a step: ``step``, ``rule``,
        ``rolled``, ``faces``, ``passed``) given outcome ``i`` of ``law``, or ``dice_note``
        saying why there are none.  Called before the outcome changes the target."""
        left = target.models - target.doomed
        key = (attack.id, actor.profile, actor.models, weapon, target.profile, left, target.wounds, situation)
        chain = self._chains.get(key)
        if chain is None:
            try:
                chain = self._chains[key] = self._chain(key, attack, actor, weapon, target, situation, left)
            except (ResolveError, ValueError, ArithmeticError, KeyError, TypeError) as err:
                chain = self._chains[key] = f"its steps could not be worked out one by one ({err})"
        if isinstance(chain, str):
            return {"dice_note": chain}
        outcome = (law.values[i], law.damaged[i] if law.damaged else 0)
        fixed = None
        if law.counts:  # drawn with a step's count (compiler.battle.joint): the dice shown agree with it
            names = [chain.count] + [s.name for s in chain.steps]
            if counted not in names:
                return {"dice_note": "its steps do not account for this outcome"}
            fixed = (names.index(counted), law.counts[i])
        try:
            counts = draw_counts(chain, outcome, self.rng, float(law.probabilities[i]), fixed)
        except (ResolveError, ValueError, ArithmeticError, KeyError, TypeError) as err:
            return {"dice_note": f"its removal could not be worked out for each count ({err})"}
        if counts is None:
            return {"dice_note": "its steps do not account for this outcome"}
        dice: list[dict[str, Any]] = [{"step": chain.count, "passed": counts[0]}]
        for step, rolled, passed in zip(chain.steps, counts, counts[1:]):
            entry: dict[str, Any] = {"step": step.name, "rule": step.rule, "rolled": rolled, "passed": passed}
            if step.counted is not None and step.others is not None:
                entry["faces"] = sorted(self._faces(step.counted, passed) + self._faces(step.others, rolled - passed),
                                        reverse=True)
            elif step.note:
                entry["note"] = step.note
            dice.append(entry)
        return {"dice": dice}

    def _faces(self, faces: Faces, n: int) -> list[int]:
        return self.rng.choices(faces[0], weights=faces[1], k=n) if n else []

    # -- the chain of an attack ------------------------------------------------------------------

    def _chain(self, key: tuple[Any, ...], attack: A.Attack, actor: Unit, weapon: str | None, target: Unit,
               situation: tuple[tuple[str, Any], ...], left: int) -> Chain | str:
        args: list[A.Expr] = [A.Name(_SPAN, _ACTOR)]
        if len(attack.params) > 2:
            args.append(A.Name(_SPAN, weapon or ""))
        args.append(A.Name(_SPAN, _TARGET))
        env = {_ACTOR: ProfileRef(actor.profile, actor.models), _TARGET: ProfileRef(target.profile, left, target.wounds)}
        steps = self.rules.evaluator(situation).evaluate(A.Call(_SPAN, attack.id, _SPAN, tuple(args), ()), env).steps
        assert isinstance(steps, LazySteps)  # an attack's steps always are (compiler.resolve.attack)
        removal = removal_step(attack)
        by_name = {s.name: s for s in attack.steps}
        last = by_name[removal].removes_from
        assert last is not None  # a battle's attack removes models (W863)
        # walk back from the removal through the steps that pass dice through a test
        piped: list[tuple[A.Step, A.Test, A.Call, bool]] = []
        name = last
        while name in steps.sums:
            step = by_name.get(name)
            value = step.value if step is not None else None
            test = self.rules.model.callables.get(value.item.func) \
                if isinstance(value, A.Each) and isinstance(value.item, A.Call) else None
            if step is None or not isinstance(value, A.Each) or not isinstance(test, A.Test) \
                    or value.becomes or value.cap is not None or not isinstance(value.count, A.Name):
                return f"its step '{name}' is not one test a die"
            assert isinstance(value.item, A.Call)
            piped.append((step, test, value.item, value.negate))
            name = value.count.id
        piped.reverse()
        count = name
        if any(steps.sums[s.name][2] != count for s, _, _, _ in piped):
            return "its steps count from different dice"
        prior = _law(steps[count])
        if prior is None or max(prior) > MAX_DICE:
            return f"its step '{count}' is not a number of dice up to {MAX_DICE}"
        chain_steps: list[StepDice] = []
        before = 1.0
        for step, test, call, negate in piped:
            sub, per_attack, _, _ = steps.sums[step.name]
            if test.id in hooked_tests(sub):
                return f"an ability acts on its test '{test.id}'"
            per = _law(per_attack)
            if per is None or not set(per) <= {0, 1}:
                return f"its step '{step.name}' makes more than one die of one"
            now = per.get(1, 0.0)
            faces = _face_law(sub.evaluate(call, dict(sub.roles)), negate)
            if faces is None or before and abs(faces[0] - now / before) > TOLERANCE:
                return f"the dice of its step '{step.name}' depend on the steps before"
            p = now / before if before else faces[0]  # no die gets this far (never hits): its test's own chance
            why = _not_shown(sub, test)
            chain_steps.append(StepDice(step.name, test.id, p, None if why else faces[1], None if why else faces[2],
                                        why))
            before = now

        def removed_given(n: int) -> dict[tuple[int, int], float]:
            found = self._removals.get(key + (n,))
            if found is None:
                found = self._removals[key + (n,)] = {k: float(p) for k, p in
                                                      removal_given_dice(steps, last, removal, n).items()}
            return found
        return Chain(count, prior, tuple(chain_steps), removed_given)


def draw_counts(chain: Chain, outcome: tuple[int, int], rng: random.Random, expected: float,
                fixed: tuple[int, int] | None = None) -> list[int] | None:
    """Each step's count (the first dice, then each step's), drawn from their exact law given
    ``outcome`` (and, given ``fixed`` = (j, h), the count h at step j: 0 the first dice); None when
    the chain gives the outcome no chance, or a chance other than ``expected`` (the volley's law's)."""
    top = max(chain.prior)
    key = outcome if fixed is None else outcome + fixed
    known = chain.given.get(key)
    if known is None:
        # betas[j][n]: the chance of the outcome (and the fixed count) given n dice counted at step j
        last = len(chain.steps)
        betas = [[chain.removal(n).get(outcome, 0.0) for n in range(top + 1)]]
        if fixed is not None and fixed[0] == last:
            betas[0] = [b if n == fixed[1] else 0.0 for n, b in enumerate(betas[0])]
        for j in range(last - 1, -1, -1):
            step, after = chain.steps[j], betas[0]
            row = [sum(_binomial(n, x, step.p) * after[x] for x in range(n + 1)) for n in range(top + 1)]
            if fixed is not None and fixed[0] == j:
                row = [b if n == fixed[1] else 0.0 for n, b in enumerate(row)]
            betas.insert(0, row)
        known = chain.given[key] = (sum(chain.prior.get(n, 0.0) * betas[0][n] for n in range(top + 1)), betas)
    total, betas = known
    weights = [chain.prior.get(n, 0.0) * betas[0][n] for n in range(top + 1)]
    if total <= 0 or abs(total - expected) > TOLERANCE:  # a chance is at most 1: the tolerance is absolute
        return None
    counts = [rng.choices(range(top + 1), weights=weights)[0]]
    for j, step in enumerate(chain.steps, 1):
        n = counts[-1]
        w = [_binomial(n, x, step.p) * betas[j][x] for x in range(n + 1)]
        counts.append(rng.choices(range(n + 1), weights=w)[0])
    return counts


def _binomial(n: int, x: int, p: float) -> float:
    return comb(n, x) * p ** x * (1 - p) ** (n - x)


def _law(value: Any) -> dict[int, float] | None:
    """A count (a whole number or a distribution of them) as {count: chance}; None if not one."""
    out: dict[int, float] = {}
    for k, p in (value.probabilities() if is_dist(value) else {value: 1}).items():
        n = unwrap(k)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            return None
        if float(p) > 0:
            out[n] = out.get(n, 0.0) + float(p)
    return out or None


def _face_law(value: Any, negate: bool) -> tuple[float, Faces, Faces] | None:
    """A test's law as (chance a die goes on, faces of those that do, faces of the others)."""
    if not is_dist(value):
        return None
    counted: dict[int, float] = {}
    others: dict[int, float] = {}
    for outcome, p in value.probabilities().items():
        roll = outcome
        if not isinstance(roll, Roll):
            return None
        side = others if roll.success == negate else counted
        side[roll.natural] = side.get(roll.natural, 0.0) + float(p)
    p_on = sum(counted.values())
    return (p_on, (tuple(counted), tuple(counted.values())) if counted else ((0,), (1.0,)),
            (tuple(others), tuple(others.values())) if others else ((0,), (1.0,)))


def _not_shown(sub: Any, test: A.Test) -> str | None:
    """Why a test's faces cannot be shown as rolled (None: they can)."""
    roll = test.roll
    if roll is None or not isinstance(roll.dice, A.Dice):
        return "a custom die"
    if roll.dice.count != 1:
        return "several dice a test"
    if isinstance(roll.target, A.Chain):
        return "a chained roll"
    if test.rerolls or sub.effects.extra_rerolls(test.id):
        return "the test re-rolls"
    return None
