"""Casualties: how the damage that gets through takes models off the target.

Each instance of damage goes to the target's models in turn; damage beyond a model's last
wound is lost, unless it comes from mortal wounds that spill over.  :func:`casualties` works
with a count of unsaved attacks that all deal the same damage; :func:`casualties_per_attack`
follows the attacks one by one when hooks made them differ (``+1 D`` on a natural 6 to
wound, mortal wounds).  A damage hook of the target (``on each damage: roll d6, ignored on
5+``) thins each instance first (:func:`feel_no_pain`).
"""
from __future__ import annotations

from fractions import Fraction
from functools import partial
from typing import Any, Callable

from compiler import ast as A
from compiler.limits import MAX_REMOVAL_WORK
from compiler.model.values import ProfileRef, TargetValue
from compiler.resolve.core import ResolveError, as_count, fast_to_exact, is_dist, num_int, unwrap
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.effects import abilities_by_id, profiles_with_abilities
from compiler.resolve.evaluator import Evaluator
from compiler.trace import note


def wounds_stat(model: Any) -> str | None:
    """The stat declared ``role wounds``: what ``removes`` takes off a model."""
    for stat in model.stats.values():
        if stat.role == "wounds":
            return str(stat.id)
    return None


def wounds_ability(model: Any) -> A.Ability | None:
    """The ability declared ``role wounds`` (``Tough(X)``): its value is a model's wounds."""
    for ability in abilities_by_id(model).values():
        if ability.role == "wounds":
            return ability
    return None


def ability_wounds(ev: Evaluator, target: ProfileRef, ability: A.Ability, span: Any) -> int:
    """A model's wounds from the ability declared ``role wounds``: its value on the profile (two
    uses stack as the ability says), else the value written ``without it``."""
    prof = ev.model.profiles.get(target.id)
    values = [use.arg for use in getattr(prof, "abilities", ()) if use.ability == ability.id and use.arg is not None]
    if values:
        return sum(values) if ability.stacking == "sum" else max(values)
    if ability.role_default is None:
        raise ResolveError(f"'removes' reads a model's wounds from '{ability.id}', which {target.id} does not have",
                           span, f"give {target.id} the ability, or say the wounds without it: "
                           f"role wounds, 1 without it")
    return ability.role_default


def has_stat(ev: Evaluator, ref: ProfileRef, name: str) -> bool:
    prof = ev.model.profiles.get(ref.id)
    return prof is not None and prof.stat(name) is not None


def feel_no_pain(ev: Evaluator, target: ProfileRef, damage: Any) -> Any:
    """``damage`` thinned by the target's damage hooks (``on each damage: roll d6, ignored on 5+``)."""
    if target.id not in profiles_with_abilities(ev.model):
        return damage  # no ability, no damage hook
    prof = ev.model.profiles.get(target.id)
    if prof is None:
        return damage
    abilities = abilities_by_id(ev.model)
    for use in prof.abilities:
        ab = abilities.get(use.ability)
        if ab is None or not ev.effects.ability_holds(ab, use.arg):
            continue
        for hook in ab.hooks:
            if hook.ignore_damage_on is None:
                continue
            note(ab.id)
            local = {ab.params[0].name: use.arg} if ab.params else {}
            t = ev.eval(hook.ignore_damage_on, local)
            t = unwrap(t)
            if not isinstance(t, TargetValue):
                t = TargetValue.high(num_int(t, hook.span))
            if hook.damage_die is None:
                raise ResolveError("say which die this rolls: on each damage: roll d6, ignored on 5+", hook.span)
            die = ev.eval(hook.damage_die, {})
            die = fast_to_exact(die) if isinstance(die, FastDist) else die
            die = die if is_dist(die) else Dist.const(die)
            need: TargetValue = t
            span = hook.span
            keep: Fraction = 1 - die.p_where(lambda face: need.passes(num_int(unwrap(face), span)))
            damage = damage.bind(partial(kept_damage, keep))
    return damage


def kept_damage(keep: Fraction, d: int) -> Any:
    """Of ``d`` points of damage, how many are kept when each is kept with chance ``keep``."""
    return Dist.binomial(d, keep) if d else 0


def casualties(ev: Evaluator, unsaved: Any, damage: Dist, wounds: int, models: int, span: Any,
               start: int = 0, joint: bool = False) -> Any:
    """Models killed by ``unsaved`` damage instances of ``damage`` each (no spill-over).

    ``start`` is the wounds the first model has already taken (a unit a volley left wounded).
    With ``joint``, the answer is the joint law of the models killed and the wounds on the
    model left damaged (0 when none is, or none is left): a mapping ``(killed, damaged) →
    chance``, what a battle needs to go on from the volley exactly.
    """
    _check_start(start, wounds, span)
    if models <= 0:
        return {(0, 0): 1} if joint else 0
    counts = unsaved if is_dist(unsaved) else Dist.const(as_count(unwrap(unsaved), span))
    if isinstance(counts, FastDist):
        fast = True
        counts_items = [(int(o), float(p)) for o, p in counts.probabilities().items()]
    else:
        fast = not ev.exact
        counts_items = [(int(o), p) for o, p in counts.probabilities().items()]
    dmg = [(int(d), p) for d, p in damage.probabilities().items()]
    if fast:
        dmg = [(d, float(p)) for d, p in dmg]
    if wounds <= 1 and all(d >= 1 for d, _ in dmg):
        capped: dict[Any, Any] = {}
        for n, p in counts_items:
            k: Any = (min(n, models), 0) if joint else min(n, models)
            capped[k] = capped.get(k, 0) + p
        return capped if joint else make_dist(capped, fast)
    max_n = max((n for n, _ in counts_items), default=0)
    most = max((d for d, _ in dmg), default=1)
    work = max_n * (min(models, max_n) + 1) * min(wounds, max_n * max(most, 1) + 1) * len(dmg)
    if work > MAX_REMOVAL_WORK:  # checked before the work: huge Wounds or many models and hits
        raise ResolveError(f"removing casualties here takes {work:,} steps; the limit is {MAX_REMOVAL_WORK:,}",
                           span, "fewer attacks, fewer models or fewer Wounds per model")
    zero: Any = 0.0 if fast else Fraction(0)
    one: Any = 1.0 if fast else Fraction(1)
    state: dict[tuple[int, int], Any] = {(0, wounds - start): one}
    result: dict[Any, Any] = {}
    weights = dict(counts_items)
    for n in range(max_n + 1):
        w = weights.get(n)
        if w:
            for (k, r), p in state.items():
                key_out: Any = ((k, 0) if k >= models else (k, wounds - r)) if joint else k
                result[key_out] = result.get(key_out, zero) + w * p
        if n == max_n:
            break
        nxt: dict[tuple[int, int], Any] = {}
        for (k, r), p in state.items():
            if k >= models:
                nxt[(k, r)] = nxt.get((k, r), zero) + p
                continue
            for d, q in dmg:
                if d >= r:
                    key = (k + 1, wounds)
                else:
                    key = (k, r - d)
                nxt[key] = nxt.get(key, zero) + p * q
        state = nxt
    if joint:
        return {k: v for k, v in result.items() if v}
    return make_dist(result, fast)


def _check_start(start: int, wounds: int, span: Any) -> None:
    if not 0 <= start < max(wounds, 1):
        raise ResolveError(f"a model with {wounds} wounds cannot have taken {start} and still stand", span)


def make_dist(weights: dict[int, Any], fast: bool) -> Any:
    weights = {k: v for k, v in weights.items() if v}
    if fast:
        return FastDist.from_weights(weights)
    return Dist.from_weights(weights)


def casualties_per_attack(ev: Evaluator, attacks: Any, bags: Any, token_damage: Callable[[Any], tuple[Any, bool]],
                          wounds: int, models: int, span: Any, start: int = 0, joint: bool = False) -> Any:
    """Models killed when each attack's tokens deal damage of their own (``+1 D`` on a natural 6).

    ``bags`` is one attack's distribution over bags of tokens that got through; each token's
    damage is ``token_damage(state)``: a distribution, and whether it spills over (mortal
    wounds).  Attacks deal their damage in turn, each with the tokens it led to in the bag's
    order (each where the one it came from stood, extra ones right after their maker), each to the model the one before it left
    wounded, damage beyond a model's last wound lost; the damage that spills over is added up
    and dealt last, going on from model to model.  ``start`` and ``joint`` are as in
    :func:`casualties`.
    """
    _check_start(start, wounds, span)
    if models <= 0:
        return {(0, 0): 1} if joint else 0
    fast = not ev.exact or isinstance(attacks, FastDist)
    counts = attacks if is_dist(attacks) else Dist.const(as_count(unwrap(attacks), span))
    weights = {int(o): (float(p) if fast else p) for o, p in counts.probabilities().items()}
    dmg: dict[Any, tuple[list[tuple[int, Any]], bool]] = {}
    per_bag: list[tuple[Any, Any]] = []
    for bag, p in bags.probabilities().items():
        per_bag.append((bag, float(p) if fast else p))
        for token_state, _ in bag:
            if token_state not in dmg and not any(flag[0] == "joins" for flag in token_state):
                dist, spill = token_damage(token_state)
                items = [(int(d), float(q) if fast else q) for d, q in dist.probabilities().items()]
                dmg[token_state] = (items, spill)
    spill_cap = models * wounds if any(spill for _, spill in dmg.values()) else 0
    max_n = max(weights, default=0)
    work = max_n * (models + 1) * wounds * (spill_cap + 1) * max(1, len(per_bag)) * \
        max((len(items) for items, _ in dmg.values()), default=1)
    if work > MAX_REMOVAL_WORK:
        raise ResolveError(f"removing casualties here takes {work:,} steps; the limit is {MAX_REMOVAL_WORK:,}",
                           span, "fewer attacks, fewer models or fewer Wounds per model")
    zero: Any = 0.0 if fast else Fraction(0)
    one: Any = 1.0 if fast else Fraction(1)
    Key = tuple[int, int, int]  # models killed, wounds left on the model being hit, damage to spill over

    def token_step(states: dict[Key, Any], items: list[tuple[int, Any]], spill: bool) -> dict[Key, Any]:
        out: dict[Key, Any] = {}
        for (k, r, m), p in states.items():
            for d, q in items:
                if k >= models or d == 0:
                    key = (k, r, m)
                elif spill:
                    key = (k, r, min(spill_cap, m + d))
                elif d >= r:
                    key = (k + 1, wounds, m)
                else:
                    key = (k, r - d, m)
                out[key] = out.get(key, zero) + p * q
        return out

    state: dict[Key, Any] = {(0, wounds - start, 0): one}
    result: dict[Any, Any] = {}
    for n in range(max_n + 1):
        w = weights.get(n)
        if w:
            for (k, r, m), p in state.items():
                out_key: Any = _spill(k, r, m, wounds, models)
                if not joint:
                    out_key = out_key[0]
                result[out_key] = result.get(out_key, zero) + w * p
        if n == max_n:
            break
        nxt: dict[Key, Any] = {}
        for bag, pb in per_bag:
            after: dict[Key, Any] = dict(state)
            for token_state, count in bag:
                if token_state not in dmg:  # on its way to a later step: no damage yet
                    continue
                items, spill = dmg[token_state]
                for _ in range(count):
                    after = token_step(after, items, spill)
            for key, p in after.items():
                nxt[key] = nxt.get(key, zero) + pb * p
        state = nxt
    if joint:
        return {k: v for k, v in result.items() if v}
    return make_dist(result, fast)


def _spill(killed: int, left: int, pending: int, wounds: int, models: int) -> tuple[int, int]:
    """Models killed once ``pending`` damage that spills over is dealt, from the model with ``left``
    wounds, and the wounds then on the model left damaged (0 when none is)."""
    if killed >= models:
        return models, 0
    if pending < left:
        return killed, wounds - left + pending
    more = pending - left
    killed += 1 + more // wounds
    return (models, 0) if killed >= models else (killed, more % wounds)
